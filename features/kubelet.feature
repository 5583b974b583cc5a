Feature: Kubernetes nodes seen through their kubelet
  herd polls each kubelet it is given (herd serve --kubelet NAME=URL, a
  --kubelet-config file, or PUT /apis/herd.dev/v1/kubelettargets/NAME):
  /healthz and /stats/summary every 10 seconds, each answer a heartbeat,
  and its pods, settings, probe counts, cAdvisor figures and the kubelet's
  own metrics every 30 seconds. The pressure conditions are the kubelet's
  own eviction signals against its own thresholds, from /configz, else the
  kubelet's defaults; CPU pressure, CPU throttling, network errors and the
  container runtime's health are herd's reading of the kubelet's figures. A kubelet that stops answering
  sends no heartbeats: herd's health rules do the rest, and the node's
  timeline says why herd cannot reach it. The kubelet's pods are observed
  pods: herd shows them as the kubelet reports them and never evicts them.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A kubelet joins the fleet as a Ready kubelet node
    Given a kubelet "worker-a" that herd polls
    Then node "worker-a" shows:
      | kind        | kubelet |
      | agent state | Ready   |
    And node "worker-a" has exactly these conditions:
      | type           | status | reason                     | since    | last heartbeat |
      | Ready          | True   | KubeletReady               | 09:00:00 | 09:00:00       |
      | MemoryPressure | False  | KubeletHasSufficientMemory | 09:00:00 | 09:00:00       |
      | DiskPressure   | False  | KubeletHasNoDiskPressure   | 09:00:00 | 09:00:00       |
      | PIDPressure    | False  | KubeletHasSufficientPID    | 09:00:00 | 09:00:00       |
      | CPUPressure    | False  | HasSufficientCPU           | 09:00:00 | 09:00:00       |
    When 25 seconds pass
    Then node "worker-a" shows Ready True since 09:00:00, last heartbeat 09:00:20

  Scenario: A kubelet under memory pressure makes MemoryPressure true
    Given a kubelet "worker-a" that herd polls
    When the kubelet on "worker-a" has 64Mi of memory available
    And 10 seconds pass
    Then node "worker-a" shows MemoryPressure True since 09:00:10, last heartbeat 09:00:10
    And the MemoryPressure condition of "worker-a" says "memory.available is below the eviction threshold 100Mi"
    And node "worker-a" has the taints:
      | key                                | effect     |
      | node.kubernetes.io/memory-pressure | NoSchedule |
    When the kubelet on "worker-a" has 2Gi of memory available
    And 10 seconds pass
    Then node "worker-a" shows MemoryPressure False since 09:00:20, last heartbeat 09:00:20
    And node "worker-a" has no taints

  Scenario: The kubelet's own thresholds decide, not herd's
    Given a kubelet "worker-a" whose evictionHard is "memory.available=1Gi", that herd polls
    When the kubelet on "worker-a" has 900Mi of memory available
    And 10 seconds pass
    Then node "worker-a" shows MemoryPressure True since 09:00:10, last heartbeat 09:00:10
    And the MemoryPressure condition of "worker-a" says "memory.available is below the eviction threshold 1Gi"

  Scenario: A kubelet that disappears goes NotReady after the grace period
    Given a kubelet "worker-a" that herd polls
    When the kubelet on "worker-a" stops answering
    And 39 seconds pass
    Then node "worker-a" shows Ready True since 09:00:00, last heartbeat 09:00:00
    When 2 seconds pass
    Then node "worker-a" shows Ready Unknown since 09:00:41, last heartbeat 09:00:00
    And node "worker-a" is NotReady
    And the timeline of "worker-a" shows, in order:
      | kind            | reason            | at       |
      | Registered      | kubelet           | 09:00:00 |
      | BecameReady     | Ready             | 09:00:00 |
      | ScrapeFailed    | ConnectionRefused | 09:00:10 |
      | HeartbeatMissed | NodeStatusUnknown | 09:00:41 |
      | BecameNotReady  | NodeStatusUnknown | 09:00:41 |
    And the log holds 1 "NodeScrapeFailed" event
    When the kubelet on "worker-a" answers again
    And 3 minutes pass
    Then node "worker-a" is Ready
    And the timeline of "worker-a" shows, in order:
      | kind            | reason            |
      | ScrapeFailed    | ConnectionRefused |
      | HeartbeatMissed | NodeStatusUnknown |
      | ScrapeRecovered | ConnectionRefused |
      | BecameReady     | Ready             |

  Scenario: The pods of a kubelet that disappears are not ready until it answers again
    As Kubernetes' node lifecycle controller does, herd marks every pod of
    a node that is not Ready not ready, a kubelet's too; once the kubelet
    answers, herd reports its pods anew and what the kubelet says stands.
    Given a kubelet "worker-a" that herd polls
    When the kubelet on "worker-a" runs pod "shop/web"
    And 30 seconds pass
    Then pod "shop/web" comes to have condition Ready=True
    When the kubelet on "worker-a" stops answering
    And 50 seconds pass
    Then node "worker-a" is NotReady
    And pod "shop/web" comes to have condition Ready=False
    When the kubelet on "worker-a" answers again
    And 3 minutes pass
    Then node "worker-a" is Ready
    And pod "shop/web" comes to have condition Ready=True

  Scenario: A crash-looping container shows on its pod, which herd never evicts
    Given a kubelet "worker-a" that herd polls
    When the kubelet on "worker-a" runs pod "shop/web"
    And the kubelet on "worker-a" runs pod "shop/api" whose container has crashed 5 times
    And 30 seconds pass
    Then pod "shop/web" is Running
    And pod "shop/api" is Running
    And pod "shop/api" runs on "worker-a", observed through its kubelet
    And pod "shop/api" shows CrashLoopBackOff: "container api restarted 5 times, last exit code 1 (Error)"
    And the container of pod "shop/api" waits with reason "CrashLoopBackOff" after 5 restarts, having last exited with code 1
    When a client evicts pod "shop/api"
    Then the request fails with 409 Conflict
    And nothing was added to the log
    When the kubelet on "worker-a" no longer runs pod "shop/api"
    And 30 seconds pass
    Then pod "shop/api" is gone
    And pod "shop/web" is Running

  Scenario: Removing a kubelet target stops herd polling it and stops its node
    A node nobody polls is stopped, as an agent that says goodbye is: not
    ready for work, and not unreachable either.

    Given a kubelet "worker-a" that herd polls
    When a client deletes the kubelet target "worker-a"
    Then herd polls 0 kubelets
    And node "worker-a" shows:
      | agent state | Stopped |
    And the Ready condition of "worker-a" says "herd no longer polls this kubelet"
    And node "worker-a" has the taints:
      | key                          | effect     |
      | node.kubernetes.io/not-ready | NoSchedule |
      | node.kubernetes.io/not-ready | NoExecute  |
    When 10 minutes pass
    Then the log holds 0 "HeartbeatMissed" events

  Scenario: A kubelet target herd cannot use is refused and changes nothing
    When a client puts the kubelet target "worker-a" with:
      """
      {"spec": {"url": "https://10.0.0.11:10250", "caFile": "/nonexistent/kubelet-ca.pem", "insecureSkipVerfy": true}}
      """
    Then the request fails with 400 BadRequest
    When a client puts the kubelet target "worker-a" with:
      """
      {"spec": {"url": "https://10.0.0.11:10250", "caFile": "/nonexistent/kubelet-ca.pem"}}
      """
    Then the request fails with 422 Invalid
    And the error names the field "spec.caFile"
    And nothing was added to the log
    And herd polls 0 kubelets

  Scenario: A kubelet node shows its machine and its kubelet's version
    Given a kubelet "worker-a" that herd polls
    Then node "worker-a" shows:
      | capacity cpu    | 4    |
      | allocatable cpu | 4    |
      | capacity memory | 16Gi |
    And node "worker-a" shows System Info:
      | kubelet version | v1.33.1                              |
      | machine ID      | 6f1c2a9d3e5b4c7a8d0e1f2a3b4c5d6e     |
      | system UUID     | ec2a1f5e-3b7d-4c9a-8e2f-61d0b4a7c3e9 |
    When the kubelet on "worker-a" is upgraded to "v1.34.2"
    And 30 seconds pass
    Then node "worker-a" shows System Info:
      | kubelet version | v1.34.2 |
    And the log holds 1 "NodeMachineObserved" event

  Scenario: A busy node is under CPU pressure
    herd's agents and kubelets share one threshold, --cpu-pressure-percent
    (80% of the node's cores unless told otherwise).

    Given a kubelet "worker-a" that herd polls
    When the kubelet on "worker-a" uses 3.5 of its 4 CPU cores
    And 10 seconds pass
    Then node "worker-a" shows CPUPressure True since 09:00:10, last heartbeat 09:00:10
    And the CPUPressure condition of "worker-a" says "CPU use is above 80% of the node's 4 cores"
    When the kubelet on "worker-a" uses 1 of its 4 CPU cores
    And 10 seconds pass
    Then node "worker-a" shows CPUPressure False since 09:00:20, last heartbeat 09:00:20

  Scenario: A container held back by its CPU limit shows on its node and its pod
    A container counts as throttled when its CPU limit held it back in more
    than 25% of its scheduling periods for a minute: two polls of the
    kubelet's cAdvisor figures, 30 seconds apart.

    Given a kubelet "worker-a" running pod "shop/web" with a CPU limit of 500m, that herd polls
    When the kubelet on "worker-a" holds the container of pod "shop/web" back in 80% of its CPU periods
    And 40 seconds pass
    Then node "worker-a" shows CPUThrottling False since 09:00:40, last heartbeat 09:00:40
    And pod "shop/web" has condition CPUThrottled=False with reason "NoCPUThrottling"
    When 30 seconds pass
    Then node "worker-a" shows CPUThrottling True since 09:01:10, last heartbeat 09:01:10
    And the CPUThrottling condition of "worker-a" says "throttled in more than 25% of their CPU periods for 1m0s: shop/web/web (80%)"
    And pod "shop/web" has condition CPUThrottled=True with message "throttled in more than 25% of its CPU periods for 1m0s: web (80%)"
    When the kubelet on "worker-a" gives the container of pod "shop/web" the CPU it needs
    And 30 seconds pass
    Then node "worker-a" shows CPUThrottling False since 09:01:40, last heartbeat 09:01:40
    And pod "shop/web" has condition CPUThrottled=False with reason "NoCPUThrottling"

  Scenario: Network errors that keep rising make a kubelet node NetworkUnavailable
    Given a kubelet "worker-a" that herd polls
    When the network interfaces of "worker-a" count 5 errors a second
    And 40 seconds pass
    Then node "worker-a" shows NetworkUnavailable True since 09:00:40, last heartbeat 09:00:40
    And the NetworkUnavailable condition of "worker-a" says "more than 1 receive and transmit errors per second"
    When the network interfaces of "worker-a" count no more errors
    And 30 seconds pass
    Then node "worker-a" shows NetworkUnavailable False since 09:01:10, last heartbeat 09:01:10

  Scenario: A failing or slow container runtime makes a kubelet node ContainerRuntimeUnhealthy
    Given a kubelet "worker-a" that herd polls
    When the container runtime on "worker-a" keeps failing pull_image operations
    And 40 seconds pass
    Then node "worker-a" shows ContainerRuntimeUnhealthy True since 09:00:40, last heartbeat 09:00:40
    And the ContainerRuntimeUnhealthy condition of "worker-a" says "the container runtime failed pull_image operations since herd's last poll"
    When the container runtime on "worker-a" no longer fails pull_image operations
    And the kubelet on "worker-a" takes 3 seconds to relist its pods
    And 30 seconds pass
    Then node "worker-a" shows ContainerRuntimeUnhealthy True since 09:00:40, last heartbeat 09:01:10
    And the ContainerRuntimeUnhealthy condition of "worker-a" says "the kubelet took longer than 1s on average to relist"
    When the kubelet on "worker-a" takes 0.02 seconds to relist its pods
    And 30 seconds pass
    Then node "worker-a" shows ContainerRuntimeUnhealthy False since 09:01:40, last heartbeat 09:01:40

  Scenario: Polls of a kubelet where nothing changed add only heartbeats to the log
    Given a kubelet "worker-a" that herd polls
    When the kubelet on "worker-a" runs pod "shop/web"
    And 70 seconds pass
    Then the next 60 seconds add only heartbeats to the log

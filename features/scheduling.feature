Feature: Scheduling pods onto nodes
  herd places every pod it runs by the Kubernetes scheduler's rules: the
  node must be Ready, not cordoned, carry no NoSchedule or NoExecute taint
  the pod does not tolerate, match the pod's nodeSelector, and have room
  for it — the pod count, and the CPU and memory the pod requests against
  what the node can allocate less what its pods already requested. Among
  the nodes that fit, the least allocated wins; an untolerated
  PreferNoSchedule taint counts against a node. A pod that fits nowhere
  stays Pending and says why, counting the reasons as the Kubernetes
  scheduler does, and records that again only when the reasons change,
  not the counts. herd tries it again after 1 second, doubling to 10
  (the Kubernetes scheduler's backoff), at once whenever a node comes,
  becomes Ready, loses a taint or its cordon, or a pod lets go of its
  room, and every 30 seconds.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: Pods go to the least allocated node
    Given these nodes have registered and are Ready:
      | name   | kind  | allocatable                 |
      | web-01 | linux | cpu=4, memory=8Gi, pods=110 |
      | web-02 | linux | cpu=4, memory=8Gi, pods=110 |
    When a client creates pod "big" requesting 2 CPU and 4Gi memory
    Then pod "big" is bound to "web-01"
    And pod "big" has condition PodScheduled=True
    When a client creates the pods "small-1" and "small-2" requesting 500m CPU and 512Mi memory each
    Then the pods are placed like this:
      | pod     | node   |
      | big     | web-01 |
      | small-1 | web-02 |
      | small-2 | web-02 |
    And the log holds 3 "PodScheduled" events

  Scenario: A scheduler that packs pods puts each on the fullest node that fits, and the what-if says where spreading them would have put them
    Given herd's scheduler scores nodes MostAllocated
    And these nodes have registered and are Ready:
      | name   | kind  | allocatable                 |
      | web-01 | linux | cpu=4, memory=8Gi, pods=110 |
      | web-02 | linux | cpu=4, memory=8Gi, pods=110 |
    When a client creates pod "big" requesting 2 CPU and 4Gi memory
    And a client creates the pods "small-1" and "small-2" requesting 500m CPU and 512Mi memory each
    Then the pods are placed like this:
      | pod     | node   |
      | big     | web-01 |
      | small-1 | web-01 |
      | small-2 | web-01 |
    And the what-if since 09:00:00 with the scheduler scoring nodes LeastAllocated places pod "small-1" on "web-02", not "web-01"

  Scenario: A scheduler scoring by a shape fills a node to half before it starts on another, and the what-if says where packing would have put a pod
    Given herd's scheduler scores nodes RequestedToCapacityRatio, by the shape 0=0,50=10,100=0
    And these nodes have registered and are Ready:
      | name   | kind  | allocatable                 |
      | web-01 | linux | cpu=4, memory=8Gi, pods=110 |
      | web-02 | linux | cpu=4, memory=8Gi, pods=110 |
    When a client creates pod "big" requesting 2 CPU and 4Gi memory
    And a client creates pod "small" requesting 500m CPU and 512Mi memory
    And a client creates pod "medium" requesting 1500m CPU and 3Gi memory
    Then the pods are placed like this:
      | pod    | node   |
      | big    | web-01 |
      | small  | web-01 |
      | medium | web-02 |
    And the what-if since 09:00:00 with the scheduler scoring nodes LeastAllocated places pod "small" on "web-02", not "web-01"
    And the what-if since 09:00:00 with the scheduler scoring nodes MostAllocated places pod "medium" on "web-01", not "web-02"

  Scenario: A nodeSelector picks the nodes a pod may go to
    Given these nodes have registered and are Ready:
      | name   | kind    | labels   | allocatable       |
      | web-01 | linux   |          | cpu=4, memory=8Gi |
      | db-01  | illumos | disk=ssd | cpu=4, memory=8Gi |
    When a client creates pod "db" with:
      """
      spec:
        nodeSelector: {disk: ssd}
      """
    Then pod "db" is bound to "db-01"
    When a client creates pod "cache" with:
      """
      spec:
        nodeSelector: {disk: nvme}
      """
    Then pod "cache" is Pending, unschedulable: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."

  Scenario: A nodeSelector on herd.dev/kind picks the nodes of that kind
    Given these nodes have registered and are Ready:
      | name    | kind    | allocatable       |
      | web-01  | linux   | cpu=4, memory=8Gi |
      | zone-01 | illumos | cpu=4, memory=8Gi |
    When a client creates pod "zone-job" with:
      """
      spec:
        nodeSelector: {herd.dev/kind: illumos}
      """
    Then pod "zone-job" is bound to "zone-01"

  Scenario: A NoSchedule taint keeps out the pods that do not tolerate it
    Given these nodes have registered and are Ready:
      | name   | kind  | allocatable       |
      | web-01 | linux | cpu=4, memory=8Gi |
    And an operator taints "web-01" with "maintenance=true:NoSchedule"
    When a client creates pod "plain" requesting 100m CPU and 64Mi memory
    Then pod "plain" is Pending, unschedulable: "0/1 nodes are available: 1 node(s) had untolerated taint {maintenance: true}."
    When a client creates pod "fixer" with:
      """
      spec:
        tolerations:
        - {key: maintenance, operator: Equal, value: "true", effect: NoSchedule}
      """
    Then pod "fixer" is bound to "web-01"
    When an operator removes the taint "maintenance:NoSchedule" from "web-01"
    Then pod "plain" is bound to "web-01"

  Scenario: A cordoned node gets no new pods
    Given these nodes have registered and are Ready:
      | name   | kind  | allocatable       |
      | web-01 | linux | cpu=4, memory=8Gi |
      | web-02 | linux | cpu=4, memory=8Gi |
    And an operator cordons "web-01"
    When a client creates the pods "a", "b" and "c" requesting 100m CPU and 64Mi memory each
    Then the pods are placed like this:
      | pod | node   |
      | a   | web-02 |
      | b   | web-02 |
      | c   | web-02 |
    When a client creates pod "rescuer" with:
      """
      spec:
        tolerations:
        - {key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}
      """
    Then pod "rescuer" is bound to "web-01"
    When an operator cordons "web-02"
    And a client creates pod "late" requesting 100m CPU and 64Mi memory
    Then pod "late" is Pending, unschedulable: "0/2 nodes are available: 2 node(s) were unschedulable."
    When an operator uncordons "web-01"
    Then pod "late" is bound to "web-01"

  Scenario: A node with room for no pods never gets one
    Given these nodes have registered and are Ready:
      | name    | kind   | capacity                    |
      | pico-01 | rp2040 | cpu=1, memory=256Ki, pods=0 |
    When a client creates pod "tiny"
    Then pod "tiny" is Pending, unschedulable: "0/1 nodes are available: 1 Too many pods."
    When 30 seconds pass
    Then pod "tiny" is Pending, unschedulable: "0/1 nodes are available: 1 Too many pods."
    And the log holds 1 "PodUnschedulable" event

  Scenario: The message counts every node's reason
    Given these nodes have registered and are Ready:
      | name   | kind  | allocatable       |
      | web-01 | linux | cpu=4, memory=8Gi |
      | web-02 | linux | cpu=4, memory=8Gi |
      | web-03 | linux | cpu=4, memory=8Gi |
      | web-04 | linux | cpu=4, memory=8Gi |
      | web-05 | linux | cpu=4, memory=8Gi |
    And an operator taints "web-01" with "maintenance=true:NoSchedule"
    And an operator taints "web-02" with "maintenance=true:NoSchedule"
    When a client creates pod "huge" requesting 1 CPU and 16Gi memory
    Then pod "huge" is Pending, unschedulable: "0/5 nodes are available: 2 node(s) had untolerated taint {maintenance: true}, 3 Insufficient memory."

  Scenario: A waiting pod is placed as soon as a node can take it
    Given these nodes have registered and are Ready:
      | name   | kind  | allocatable       |
      | web-01 | linux | cpu=1, memory=2Gi |
    When a client creates pod "first" requesting 800m CPU and 1Gi memory
    And a client creates pod "second" requesting 800m CPU and 1Gi memory
    Then pod "first" is bound to "web-01"
    And pod "second" is Pending, unschedulable: "0/1 nodes are available: 1 Insufficient cpu."
    When the linux node "web-02" registers through herd's agent with:
      | allocatable | cpu=4, memory=8Gi |
    # A node that is not Ready yet is nothing the pod can act on: its
    # reasons stay as they were recorded, and the log gains no event.
    Then pod "second" is Pending, unschedulable: "0/1 nodes are available: 1 Insufficient cpu."
    When the agent on "web-02" reports healthy metrics
    Then pod "second" is bound to "web-02"

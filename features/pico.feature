Feature: A Raspberry Pi Pico speaks for itself
  A Pico running the k3s-pico-node firmware registers itself as a
  Kubernetes node, reports its status every 10 seconds and reads its
  configuration from the ConfigMap default/pico-config every 30 seconds.
  It sends no credentials, and it has no real-time clock: until an HTTP
  Date header has set it, everything it sends is stamped 1970-01-01. herd
  takes the firmware exactly as it is: it knows the board as an rp2040
  node, keeps every time by its own clock, never gives it a pod, and
  watches it fall silent like any other node.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A Pico registers and stays Ready while it reports
    When the Pico "pico-01" is switched on
    Then its registration was accepted
    And every request of "pico-01" so far went out as the firmware writes it
    And node "pico-01" shows:
      | kind                                   | rp2040      |
      | agent state                            | Ready       |
      | label node.kubernetes.io/instance-type | rp2040-pico |
      | label kubernetes.io/arch               | arm         |
      | started at                             | 09:00:00    |
      | capacity memory                        | 256Ki       |
      | allocatable pods                       | 0           |
    And node "pico-01" has exactly these conditions:
      | type               | status | reason                     | since    | last heartbeat |
      | Ready              | True   | KubeletReady               | 09:00:00 | 09:00:00       |
      | MemoryPressure     | False  | KubeletHasSufficientMemory | 09:00:00 | 09:00:00       |
      | DiskPressure       | False  | KubeletHasNoDiskPressure   | 09:00:00 | 09:00:00       |
      | PIDPressure        | False  | KubeletHasSufficientPID    | 09:00:00 | 09:00:00       |
      | NetworkUnavailable | False  | RouteCreated               | 09:00:00 | 09:00:00       |
    When "pico-01" reports every 10 seconds for 2 minutes
    Then node "pico-01" shows Ready True since 09:00:00, last heartbeat 09:02:00
    And node "pico-01" has no taints
    And no time herd shows for "pico-01" comes from the node's clock
    And the log holds 1 "NodeStatusChanged" event
    And the log holds 0 "NodeConditionChanged" events
    And the log holds 13 "HeartbeatRecorded" events

  Scenario: A Pico that finds its node already there falls back to its status report
    Given the Pico "pico-01" was switched on
    And 30 seconds pass
    When "pico-01" is switched off and on again
    Then its registration was refused with 409 and its status report was accepted
    And every request of "pico-01" so far went out as the firmware writes it
    And node "pico-01" shows:
      | kind                | rp2040   |
      | agent state         | Ready    |
      | restart count       | 1        |
      | last restart reason | reboot   |
      | started at          | 09:00:00 |
      | last heartbeat      | 09:00:30 |
    And node "pico-01" shows Ready True since 09:00:00, last heartbeat 09:00:30
    And no time herd shows for "pico-01" comes from the node's clock
    And the timeline of "pico-01" shows, in order:
      | kind        | reason | at       |
      | Registered  | rp2040 | 09:00:00 |
      | BecameReady | Ready  | 09:00:00 |
      | Restarted   | reboot | 09:00:30 |
      | BecameReady | Ready  | 09:00:30 |

  Scenario: A Pico that falls silent goes NotReady after the grace period
    Given the Pico "pico-01" was switched on
    And "pico-01" reports every 10 seconds for 20 seconds
    When "pico-01" is switched off
    And 40 seconds pass
    Then node "pico-01" shows Ready True since 09:00:00, last heartbeat 09:00:20
    When 5 seconds pass
    Then node "pico-01" shows Ready Unknown since 09:01:05, last heartbeat 09:00:20
    And the Ready condition of "pico-01" says "Kubelet stopped posting node status."
    When the Pico "pico-01" is switched on
    Then node "pico-01" shows Ready True since 09:01:05, last heartbeat 09:01:05

  Scenario: A Pico is never given a pod
    Given the Pico "pico-01" was switched on
    When a client creates pod "tiny"
    Then pod "tiny" is Pending, unschedulable: "0/1 nodes are available: 1 Too many pods."
    When "pico-01" reports every 10 seconds for 1 minute
    Then pod "tiny" is not bound to any node
    And node "pico-01" offers room for no pod

  Scenario: The operator sets the Pico's configuration with kubectl, and its next poll reads it
    Given the Pico "pico-01" was switched on
    When "pico-01" polls its configuration
    Then the request fails with 404 NotFound
    And "pico-01" has read no configuration
    When the operator runs:
      """
      kubectl create configmap pico-config --from-literal=interval=5 --from-literal=led=blink
      """
    Then kubectl prints "configmap/pico-config created"
    When "pico-01" polls its configuration
    Then "pico-01" reads the configuration:
      | interval | 5     |
      | led      | blink |
    When the operator runs:
      """
      kubectl patch configmap pico-config -p '{"data":{"interval":"2"}}'
      """
    And "pico-01" polls its configuration
    Then "pico-01" reads the configuration:
      | interval | 2     |
      | led      | blink |

  @kubelet-probes
  Scenario: herd probes the Pico's port 10250 and names what fails
    When the Pico "pico-01" is switched on
    Then herd soon finds the kubelet endpoint of "pico-01" reachable
    When the kubelet endpoint of "pico-01" stops answering
    And 15 seconds pass
    Then herd soon finds the kubelet endpoint of "pico-01" unreachable: ConnectionRefused, "connection refused"
    And node "pico-01" shows Ready True since 09:00:00, last heartbeat 09:00:00
    When the kubelet endpoint of "pico-01" starts answering
    And 15 seconds pass
    Then herd soon finds the kubelet endpoint of "pico-01" reachable

Feature: Events
  Every Kubernetes Event herd shows is read from its log: nothing is
  stored twice. A pod's events sit in the pod's namespace and a node's in
  "default", as in Kubernetes, so that kubectl get events, kubectl
  describe and kubectl get events -w read them as they read a cluster's.
  The scheduler reports where it put a pod, or why it could put it
  nowhere.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A scheduled pod has a Scheduled event naming its node
    Given these nodes have registered and are Ready:
      | name   | kind  | allocatable       |
      | web-01 | linux | cpu=4, memory=8Gi |
    When a client creates pod "web"
    Then pod "web" is bound to "web-01"
    And the events of pod "web" include:
      | type   | reason    | from              | message                                     |
      | Normal | Scheduled | default-scheduler | Successfully assigned default/web to web-01 |

  Scenario: An unschedulable pod has FailedScheduling with the scheduler's reason
    Given these nodes have registered and are Ready:
      | name   | kind  | allocatable       |
      | web-01 | linux | cpu=4, memory=8Gi |
    When a client creates pod "huge" requesting 16 CPU and 4Gi memory
    Then pod "huge" is Pending, unschedulable: "0/1 nodes are available: 1 Insufficient cpu."
    And the events of pod "huge" include:
      | type    | reason           | from              | message                                      |
      | Warning | FailedScheduling | default-scheduler | 0/1 nodes are available: 1 Insufficient cpu. |

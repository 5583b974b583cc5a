Feature: DaemonSets run one pod on every node
  A DaemonSet keeps one pod made from its template on every node that
  fits it — of the kind its node selector names, without a taint its
  pods do not tolerate, with room for one more pod — as Kubernetes'
  DaemonSet controller does. A node that joins gets its pod, a node an
  operator keeps out loses it, a drain leaves it where it is, a new
  template replaces the pods a node at a time, and the pods go with
  their DaemonSet.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And these nodes have registered and are Ready:
      | name    | kind    | allocatable                 |
      | web-01  | linux   | cpu=4, memory=8Gi, pods=110 |
      | web-02  | linux   | cpu=4, memory=8Gi, pods=110 |
      | zone-01 | illumos | cpu=4, memory=8Gi, pods=110 |

  Scenario: One pod on each node of the kind, and on a node that joins
    When DaemonSet "logs" runs pods labelled app=logs on nodes with herd.dev/kind=linux
    Then DaemonSet "logs" has a Running pod on each of "web-01, web-02" and no other
    And DaemonSet "logs" shows 2 desired, 2 current, 2 ready, 2 up to date, 2 available
    When node "web-03" has registered and is Ready
    Then DaemonSet "logs" has a Running pod on each of "web-01, web-02, web-03" and no other
    And DaemonSet "logs" shows 3 desired, 3 current, 3 ready, 3 up to date, 3 available

  Scenario: A node an operator keeps out loses its pod; one under pressure or cordoned keeps it
    Given DaemonSet "logs" runs pods labelled app=logs on every node
    When an operator taints "web-01" with "maintenance=true:NoExecute"
    And an operator cordons "zone-01"
    Then DaemonSet "logs" has a Running pod on each of "web-02, zone-01" and no other
    And DaemonSet "logs" shows 2 desired, 2 current, 2 ready, 2 up to date, 2 available
    When an operator removes the taint "maintenance" from "web-01"
    Then DaemonSet "logs" has a Running pod on each of "web-01, web-02, zone-01" and no other

  Scenario: A drain leaves the DaemonSet's pod where it is, as kubectl drain --ignore-daemonsets does
    Given DaemonSet "logs" runs pods labelled app=logs on every node
    And ReplicaSet "web" keeps 2 pods labelled app=web
    When an operator drains "web-01" with a grace period of 5 seconds
    And 5 seconds pass
    Then node "web-01" is in agent state Drained
    And ReplicaSet "web" has 2 pods Running, none on "web-01"
    And DaemonSet "logs" has a Running pod on each of "web-01, web-02, zone-01" and no other

  Scenario: A new template replaces the pods, and deleting the DaemonSet deletes them
    Given DaemonSet "logs" runs pods labelled app=logs on every node
    When DaemonSet "logs" is given the image "fluent-bit:4"
    Then DaemonSet "logs" has a Running pod of "fluent-bit:4" on each of "web-01, web-02, zone-01" and no other
    And DaemonSet "logs" shows 3 desired, 3 current, 3 ready, 3 up to date, 3 available
    When DaemonSet "logs" is deleted
    Then DaemonSet "logs" has no pods

Feature: What other health settings would have done
  herd replay --what-if (or herd what-if) runs herd's own reconcilers again
  on a window of the log under other health settings and says what would
  have been different: which nodes would have gone NotReady, or not, or
  when, and which pods a NoExecute taint would have evicted. What the nodes
  and the operators sent is fed in at the times they sent it; herd's rules
  decide the rest again. With the settings herd ran with, it finds what
  happened.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready
    And node "n2" has registered and is Ready
    And node "n3" has registered and is Ready
    And pod "web" runs on "n1", ignoring shutdown, with:
      """
      spec:
        tolerations:
        - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 30}
      """
    When 30 seconds pass while "n2" and "n3" keep reporting
    And the agent on "n1" reports the same metrics again
    And 2 minutes pass while "n2" and "n3" keep reporting

  Scenario: With the grace period herd ran with, the what-if finds what happened
    Then replaying since 09:00:00 with a node-monitor-grace-period of 40s finds nothing different

  Scenario: A shorter grace period yesterday
    Then replaying since 09:00:00 with a node-monitor-grace-period of 20s, node "n1" would have gone NotReady 2 times, not 1
    And replaying since 09:00:00 with a node-monitor-grace-period of 20s, pod "web" would have been evicted earlier

  Scenario: A what-if lists the first decisions that differ and counts them all
    Then replaying since 09:00:00 with a node-monitor-grace-period of 20s, listing 1 decision of each kind, lists the first and still counts them all

  Scenario: A longer grace period yesterday
    Then replaying since 09:00:00 with a node-monitor-grace-period of 3m, node "n1" would have gone NotReady 0 times, not 1
    And replaying since 09:00:00 with a node-monitor-grace-period of 3m, pod "web" would not have been evicted

Feature: Restarting herd does not mark or evict the fleet
  While herd is stopped nobody hears the nodes, so their silence then is
  herd's, not theirs. As kube-controller-manager's node lifecycle
  controller does from its own start, herd gives every node a full grace
  period (40 seconds, --node-monitor-grace-period) from the moment it is
  back, whether it was restarted, upgraded, or another replica took its
  health rules over: a node that reports within that period is never
  marked, tainted or evicted, and the fleet-disruption rule does not judge
  a fleet before herd has read it again. A node that stays silent is
  marked one grace period after herd's start, as any silent node is.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "web-01" has registered and is Ready
    And node "web-02" has registered and is Ready
    And node "web-03" has registered and is Ready

  Scenario: herd restarted after 15 minutes down marks and evicts nothing that reports within its grace period
    Given pod "api" runs on "web-01", with:
      """
      spec:
        tolerations:
        - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 1}
      """
    And pod "cache" runs on "web-03", with:
      """
      spec:
        tolerations:
        - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 1}
      """
    When herd is down for 15 minutes and starts again on its data
    And 10 seconds pass
    And the agent on "web-01" reports healthy metrics
    And 10 seconds pass
    And the agent on "web-02" reports healthy metrics
    And 15 seconds pass
    And the agent on "web-03" reports healthy metrics
    And 30 seconds pass while "web-01", "web-02" and "web-03" keep reporting
    Then node "web-01" shows Ready True since 09:00:00, last heartbeat 09:16:05
    And node "web-03" shows Ready True since 09:00:00, last heartbeat 09:16:05
    And node "web-01" has no taints
    And node "web-02" has no taints
    And node "web-03" has no taints
    And pod "api" is not terminating
    And pod "cache" is not terminating
    And the log holds 0 "HeartbeatMissed" events
    And the log holds 0 "FleetDisruptionStarted" events
    And the log holds 1 "HealthMonitorStarted" event

  Scenario: a node silent across the restart is marked one grace period after herd's start
    When herd is down for 15 minutes and starts again on its data
    And 35 seconds pass
    And the agent on "web-01" reports healthy metrics
    And the agent on "web-02" reports healthy metrics
    And 5 seconds pass
    Then node "web-03" shows Ready True since 09:00:00, last heartbeat 09:00:00
    And node "web-03" has no taints
    When 5 seconds pass
    Then node "web-03" shows Ready Unknown since 09:15:45, last heartbeat 09:00:00
    And node "web-03" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    And node "web-01" has no taints
    And the log holds 0 "FleetDisruptionStarted" events

  Scenario: the fleet-disruption rule does not judge a fleet herd has not loaded
    Given the agent on "web-01" stops cleanly
    And the agent on "web-02" stops cleanly
    And the agent on "web-03" stops cleanly
    When herd is down for 15 minutes and starts again on its data
    And 5 seconds pass
    And the agent on "web-01" registers again
    And 5 seconds pass
    And the agent on "web-02" registers again
    And 5 seconds pass
    And the agent on "web-03" registers again
    And the agent on "web-01" reports healthy metrics
    And the agent on "web-02" reports healthy metrics
    And the agent on "web-03" reports healthy metrics
    And 30 seconds pass while "web-01", "web-02" and "web-03" keep reporting
    Then the log holds 0 "FleetDisruptionStarted" events
    And the log holds 0 "HeartbeatMissed" events
    And node "web-01" has no taints
    And node "web-02" has no taints
    And node "web-03" has no taints

  Scenario: the what-if with herd's own settings takes herd's downtime as it was, not as a difference
    Given pod "cache" runs on "web-03", with:
      """
      spec:
        tolerations:
        - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 1}
      """
    When herd is down for 15 minutes and starts again on its data
    And 90 seconds pass while "web-01" and "web-02" keep reporting
    Then node "web-03" shows Ready Unknown since 09:15:45, last heartbeat 09:00:00
    And replaying since 09:00:00 with a node-monitor-grace-period of 40s finds nothing different
    And replaying since 09:00:00 with a node-monitor-grace-period of 40s says the window crosses herd's downtime from 09:00:00 to 09:15:00

  Scenario: a what-if of a window that ends before herd went down names no downtime
    When 2 minutes pass while "web-01", "web-02" and "web-03" keep reporting
    And herd is down for 15 minutes and starts again on its data
    And 90 seconds pass while "web-01", "web-02" and "web-03" keep reporting
    Then replaying from 09:00:00 until 09:01:30 with a node-monitor-grace-period of 40s finds nothing different and names no downtime of herd
    And replaying since 09:00:00 with a node-monitor-grace-period of 40s says the window crosses herd's downtime from 09:02:00 to 09:17:00

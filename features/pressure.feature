@pressure-hold
Feature: Pressure conditions hold for a transition period
  A pressure condition that herd derives from an agent's figures
  (MemoryPressure, DiskPressure, PIDPressure, HighLoad, CPUPressure) turns
  True as soon as its figure is above the threshold, and stays True until
  the figure has stayed at or under it for the whole transition period:
  five minutes, as the kubelet's --eviction-pressure-transition-period
  (herd serve --pressure-transition-period). A node whose memory wanders
  around the threshold keeps its condition and its taint, rather than
  flipping them every other heartbeat. The condition's message names the
  threshold, not a reading that would be stale by the next heartbeat;
  the readings are on kubectl top.

  Scenario: Memory pressure clears only after five minutes under the threshold
    Given node "web-01" has registered and is Ready
    When 10 seconds pass
    And the agent on "web-01" reports memory 95% used
    Then node "web-01" shows MemoryPressure True since 09:00:10, last heartbeat 09:00:10
    And the MemoryPressure condition of "web-01" says "memory used above the 90% threshold"
    And node "web-01" has the taints:
      | key                                | effect     |
      | node.kubernetes.io/memory-pressure | NoSchedule |
    When 10 seconds pass
    And the agent on "web-01" reports memory 60% used
    Then node "web-01" shows MemoryPressure True since 09:00:10, last heartbeat 09:00:20
    When 10 seconds pass
    And the agent on "web-01" reports memory 95% used
    And 10 seconds pass
    And the agent on "web-01" reports memory 60% used
    And 4 minutes pass while "web-01" keeps reporting
    Then node "web-01" shows MemoryPressure True since 09:00:10, last heartbeat 09:04:40
    And node "web-01" has the taints:
      | key                                | effect     |
      | node.kubernetes.io/memory-pressure | NoSchedule |
    When 1 minute passes while "web-01" keeps reporting
    Then node "web-01" shows MemoryPressure False since 09:05:40, last heartbeat 09:05:40
    And the MemoryPressure condition of "web-01" says "memory used at or below the 90% threshold"
    And node "web-01" has no taints
    And the log records these MemoryPressure changes for "web-01":
      | from  | to    | at       |
      | none  | False | 09:00:00 |
      | False | True  | 09:00:10 |
      | True  | False | 09:05:40 |

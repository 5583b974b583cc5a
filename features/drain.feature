Feature: Draining a node empties it
  An operator drains a node to take it out of service: herd cordons it,
  marks it Draining and evicts every pod on it — each marked
  DisruptionTarget (EvictionByEvictionAPI) and deleted with the drain's
  grace period, or its own. Once no pod is left the node is Drained, and
  stays cordoned until the operator undrains it.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready
    And node "n2" has registered and is Ready

  Scenario: Every pod on the node is evicted; the node is Drained once the last has gone
    Given pod "web" runs on "n1", ignoring shutdown
    And pod "db" runs on "n1"
    And pod "cache" runs on "n2"
    When an operator drains "n1"
    Then node "n1" is cordoned
    And node "n1" is in agent state Draining
    And pod "db" is gone
    And pod "web" is terminating
    And pod "web" has condition DisruptionTarget=True with reason "EvictionByEvictionAPI"
    And pod "web" has a deletion grace period of 30 seconds, ending at 09:00:30
    When 29 seconds pass
    Then node "n1" is in agent state Draining
    When 1 second passes
    Then pod "web" is gone
    And node "n1" is in agent state Drained
    And node "n1" is cordoned
    And pod "cache" is Running
    And pod "cache" is not terminating
    And the log of pod "db" shows, in order:
      | event                 | at       | reason                |
      | PodCreated            | 09:00:00 |                       |
      | PodScheduled          | 09:00:00 |                       |
      | PodIPAssigned         | 09:00:00 |                       |
      | PodStatusUpdated      | 09:00:00 |                       |
      | PodDisruptionTargeted | 09:00:00 | EvictionByEvictionAPI |
      | PodDeletionRequested  | 09:00:00 |                       |
      | PodShutdownRequested  | 09:00:00 |                       |
      | PodStopped            | 09:00:00 |                       |
      | PodDeprovisioned      | 09:00:00 |                       |
      | PodFinalized          | 09:00:00 | Terminated            |

  Scenario: The drain's grace period overrides the pods' own
    Given pod "web" runs on "n1", ignoring shutdown
    When an operator drains "n1" with a grace period of 5 seconds
    Then pod "web" has a deletion grace period of 5 seconds, ending at 09:00:05
    When 5 seconds pass
    Then pod "web" is gone
    And node "n1" is in agent state Drained
    And the runtime took pod "web" through, in order:
      | step        | at       |
      | Provision   | 09:00:00 |
      | Start       | 09:00:00 |
      | Shutdown    | 09:00:00 |
      | Halt        | 09:00:05 |
      | Stopped     | 09:00:05 |
      | Deprovision | 09:00:05 |

  Scenario: A node without pods is Drained at once; undraining returns it to Ready
    When an operator drains "n1"
    Then node "n1" is in agent state Drained
    And node "n1" is cordoned
    When an operator undrains "n1"
    Then node "n1" is in agent state Ready
    And node "n1" is schedulable
    And pod "web" runs on "n1"

@without-reconcilers
Feature: Heartbeats and the conditions herd derives from them
  herd's agent reports its host's metrics every few seconds. The first
  report makes the node Ready. From the metrics herd derives four pressure
  conditions, each True only when its measurement is strictly above the
  threshold: memory, disk or PIDs more than 90% used, or a one-minute load
  of more than twice the CPU count. As in Kubernetes, a condition's last
  heartbeat time moves with every report and its last transition time only
  when its status changes; the log records a condition change only then.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And the linux node "web-01" registers through herd's agent

  Scenario: The first heartbeat makes a node Ready
    When 10 seconds pass
    And the agent on "web-01" reports healthy metrics
    Then node "web-01" shows:
      | agent state    | Ready    |
      | last heartbeat | 09:00:10 |
      | started at     | 09:00:00 |
    And node "web-01" has exactly these conditions:
      | type           | status | reason              | since    | last heartbeat |
      | Ready          | True   | AgentReady          | 09:00:10 | 09:00:10       |
      | MemoryPressure | False  | HasSufficientMemory | 09:00:10 | 09:00:10       |
      | DiskPressure   | False  | HasNoDiskPressure   | 09:00:10 | 09:00:10       |
      | PIDPressure    | False  | HasSufficientPID    | 09:00:10 | 09:00:10       |
      | HighLoad       | False  | NormalLoad          | 09:00:10 | 09:00:10       |
    And the timeline of "web-01" shows, in order:
      | kind        | reason | at       |
      | Registered  | linux  | 09:00:00 |
      | BecameReady | Ready  | 09:00:10 |
    And the resourceVersion of "web-01" is the log position of its latest event

  Scenario: A heartbeat that changes nothing records only the heartbeat
    Given the agent on "web-01" reports healthy metrics
    When 10 seconds pass
    And the agent on "web-01" reports the same metrics again
    Then the request added exactly HeartbeatRecorded to the log
    And the resourceVersion of "web-01" is the log position of its latest event
    And node "web-01" shows Ready True since 09:00:00, last heartbeat 09:00:10
    And node "web-01" shows:
      | agent state    | Ready    |
      | last heartbeat | 09:00:10 |

  Scenario Outline: <condition> turns True only above its threshold, a Warning, and False again below it
    Given the agent on "web-01" reports healthy metrics
    When 10 seconds pass
    And the agent on "web-01" reports <exactly at the threshold>
    Then node "web-01" shows <condition> False since 09:00:00, last heartbeat 09:00:10
    And the request added exactly HeartbeatRecorded to the log
    When 10 seconds pass
    And the agent on "web-01" reports <just above it>
    Then node "web-01" shows <condition> True since 09:00:20, last heartbeat 09:00:20
    And the request added exactly HeartbeatRecorded and NodeConditionChanged to the log
    When 10 seconds pass
    And the agent on "web-01" reports <still above it>
    Then node "web-01" shows <condition> True since 09:00:20, last heartbeat 09:00:30
    And the request added exactly HeartbeatRecorded to the log
    When 10 seconds pass
    And the agent on "web-01" reports <back below it>
    Then node "web-01" shows <condition> False since 09:00:40, last heartbeat 09:00:40
    And node "web-01" shows Ready True since 09:00:00, last heartbeat 09:00:40
    And the log records these <condition> changes for "web-01":
      | from  | to    | at       |
      | none  | False | 09:00:00 |
      | False | True  | 09:00:20 |
      | True  | False | 09:00:40 |
    And the timeline of "web-01" shows, in order:
      | kind             | type    | reason   | at       |
      | Registered       | Normal  | linux    | 09:00:00 |
      | BecameReady      | Normal  | Ready    | 09:00:00 |
      | ConditionChanged | Warning | <raised> | 09:00:20 |
      | ConditionChanged | Normal  | <eased>  | 09:00:40 |
    And the resourceVersion of "web-01" is the log position of its latest event

    Examples:
      | condition      | exactly at the threshold | just above it             | still above it         | back below it          | raised                | eased               |
      | MemoryPressure | memory 90% used          | memory 90.0001% used      | memory 97.5% used      | memory 60% used        | HasInsufficientMemory | HasSufficientMemory |
      | DiskPressure   | disk 90% used            | disk 90.0001% used        | disk 99% used          | disk 89.9999% used     | HasDiskPressure       | HasNoDiskPressure   |
      | PIDPressure    | PIDs 90% in use          | PIDs 90.001% in use       | PIDs 95% in use        | PIDs 10% in use        | HasInsufficientPID    | HasSufficientPID    |
      | HighLoad       | a load of 8 on 4 CPUs    | a load of 8.01 on 4 CPUs  | a load of 12 on 4 CPUs | a load of 2 on 4 CPUs  | HighLoad              | NormalLoad          |

  Scenario: Each condition keeps its own transition time
    Given the agent on "web-01" reports healthy metrics
    When 1 minute passes
    And the agent on "web-01" reports memory 95% used
    And 1 minute passes
    And the agent on "web-01" reports disk 92% used
    And 1 minute passes
    And the agent on "web-01" reports a load of 2 on 1 CPUs
    Then node "web-01" has exactly these conditions:
      | type           | status | since    | last heartbeat |
      | Ready          | True   | 09:00:00 | 09:03:00       |
      | MemoryPressure | True   | 09:01:00 | 09:03:00       |
      | DiskPressure   | True   | 09:02:00 | 09:03:00       |
      | PIDPressure    | False  | 09:00:00 | 09:03:00       |
      | HighLoad       | False  | 09:00:00 | 09:03:00       |
    And the log records these HighLoad changes for "web-01":
      | from | to    | at       |
      | none | False | 09:00:00 |

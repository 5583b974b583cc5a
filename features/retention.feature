@without-reconcilers
Feature: A bounded log
  A fleet reports in every few seconds, and a log that kept every report
  would grow for ever. herd keeps every heartbeat for --heartbeat-retention
  (15 minutes unless told otherwise). After that, a plain heartbeat that a
  later heartbeat of the same node supersedes is deleted: it changed
  nothing but times and metrics, and the later one sets them all again.
  Each node's newest heartbeat and every other event — registrations,
  condition changes, taints, restarts, pods — are kept for ever, so
  replaying what is left still gives exactly the live views. A watch or
  list at a resourceVersion from before the deleted heartbeats gets
  410 Expired, as it would after etcd's compaction.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And the linux node "web-01" registers through herd's agent
    And the rp2040 node "pico-07" is created through the Kubernetes API
    And the agent on "web-01" reports healthy metrics
    And "pico-07" patches its status as "application/merge-patch+json" with:
      """
      {"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "PicoReady"}]}}
      """
    And a client has listed the nodes

  Scenario: Old heartbeats go; each node's newest and every other event stay
    When 10 minutes pass while "web-01" keeps reporting
    And the agent on "web-01" reports memory 95% used
    And 20 minutes pass while "web-01" keeps reporting
    And herd's heartbeat retention runs
    Then the log keeps every heartbeat of "web-01" recorded since 09:15:00
    And of the heartbeats of "web-01" recorded before 09:15:00, the log keeps only the newest
    And the log keeps the one heartbeat of "pico-07", which went silent at 09:00:00
    And the log keeps every event that is not a heartbeat
    And the audit log says that history before 09:15:00 is thinned
    And rebuilding the views from the log gives exactly the live views

  Scenario: Before the compaction point a watch gets 410 Expired, and a list of the past a warning
    When 30 minutes pass while "web-01" keeps reporting
    And herd's heartbeat retention runs
    And a client watches the nodes from the resourceVersion of its list
    Then the watch ends with an ERROR event: 410 Expired
    And listing the nodes at the resourceVersion of that list shows "web-01" as it was, warning that its heartbeats were thinned
    When a client watches the nodes from now
    And the agent on "web-01" reports the same metrics again
    Then the watch's next event is MODIFIED "web-01"

  Scenario: Beyond the window, one heartbeat per node every few minutes
    Given herd keeps heartbeats for 15 minutes, and one per node every 5 minutes beyond
    When 30 minutes pass while "web-01" keeps reporting
    And herd's heartbeat retention runs
    Then of the heartbeats of "web-01" recorded before 09:15:00, the log keeps the first of every 5 minutes and the newest

  Scenario: With retention off, every heartbeat is kept
    Given herd keeps every heartbeat
    When 30 minutes pass while "web-01" keeps reporting
    And herd's heartbeat retention runs
    Then the log keeps every heartbeat of "web-01" recorded since 09:00:00

Feature: An overloaded herd does not mark nodes for its own delay
  When herd falls behind, the writes of node heartbeats wait in herd's own
  queue for their commit. A heartbeat that has reached herd is not a
  missing heartbeat: herd counts the node as heard when its lease renewal
  or status report arrives, not when the write lands, and allows for how
  far behind its own writes are before it marks a node. While behind,
  /readyz says so, and herd answers what can wait (other writes, reads,
  lists, watches) 429 Too Many Requests with Retry-After instead of
  queueing it behind the heartbeats. Node heartbeats have a share of
  their own: past it (a fleet larger than herd can carry), the excess is
  answered 429 with a Retry-After of a quarter of the grace period (a
  kubelet's renewal interval), and still counts for its node.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A node whose lease renewals wait inside an overloaded herd stays Ready
    Given node "busy" has registered and is Ready
    And the kubelet of "busy" creates its lease
    When herd's writes stall
    And "busy" renews its lease every 10 seconds for 60 seconds while herd's writes stall
    Then herd is not ready, saying "[-]write-queue failed: herd's writes are behind: the oldest has waited 50s"
    When herd's writes go through
    Then node "busy" is Ready
    And the lease of "busy" was last renewed at 09:01:00
    And the log holds 0 "HeartbeatMissed" events
    And the log holds 0 "NodeTainted" events

  Scenario: While behind, herd says so and refuses what can wait
    Given node "busy" has registered and is Ready
    And the kubelet of "busy" creates its lease
    When herd's writes stall
    And "busy" renews its lease every 10 seconds for 20 seconds while herd's writes stall
    Then herd is not ready, saying "[-]write-queue failed"
    And herd's metric herd_write_queue_oldest_seconds is 10
    And herd's metric herd_write_queue_commands is 2
    And listing the nodes is refused with 429 Too Many Requests, Retry-After 1, saying "herd is behind"
    When herd's writes go through
    Then herd's metric herd_write_queue_oldest_seconds is 0
    And herd's metric herd_requests_shed_total{level="reads",reason="behind"} is 1
    And node "busy" is Ready

  Scenario: A node whose heartbeats find herd's share of them full stays Ready
    Given herd takes in 1 node heartbeat at a time
    And node "busy" has registered and is Ready
    And the kubelet of "busy" creates its lease
    And node "crowded" has registered and is Ready
    And the kubelet of "crowded" creates its lease
    And node "silent" has registered and is Ready
    And the kubelet of "silent" creates its lease
    When herd's writes stall
    And "busy" renews its lease every 10 seconds for 10 seconds while herd's writes stall
    And "crowded" renews its lease every 10 seconds for 50 seconds, each answered 429 Too Many Requests, Retry-After 10, saying "too many node heartbeats at once: herd takes 1 at a time"
    And herd's writes go through
    And 30 seconds pass
    Then node "crowded" is Ready
    And node "silent" is NotReady
    And herd's metric herd_requests_shed_total{level="node-heartbeats",reason="inflight"} is 5

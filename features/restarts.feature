@without-reconcilers
Feature: Restarts
  An agent that registers again has restarted. herd counts restarts and
  remembers why the last one happened: "crash recovery" when the agent
  came back without having said goodbye, "clean start" when it had stopped
  cleanly first. When herd first saw the node stays as it was.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "web-01" has registered and is Ready

  Scenario: An agent that registers again without stopping has crashed
    When 5 minutes pass
    And the agent on "web-01" registers again
    Then the request added exactly NodeRestarted to the log
    And node "web-01" shows:
      | agent state         | Starting       |
      | restart count       | 1              |
      | last restart reason | crash recovery |
      | started at          | 09:00:00       |
      | last heartbeat      | 09:00:00       |
    And the timeline of "web-01" shows, in order:
      | kind        | reason         | at       |
      | Registered  | linux          | 09:00:00 |
      | BecameReady | Ready          | 09:00:00 |
      | Restarted   | crash recovery | 09:05:00 |
    When 10 seconds pass
    And the agent on "web-01" reports healthy metrics
    Then node "web-01" shows:
      | agent state    | Ready    |
      | restart count  | 1        |
      | last heartbeat | 09:05:10 |
    And node "web-01" shows Ready True since 09:00:00, last heartbeat 09:05:10

  Scenario: A crash, then a clean stop and start
    Given 5 minutes pass
    And the agent on "web-01" registers again
    When 1 minute passes
    And the agent on "web-01" stops cleanly
    Then node "web-01" shows:
      | agent state         | Stopped        |
      | restart count       | 1              |
      | last restart reason | crash recovery |
    And node "web-01" has these conditions:
      | type  | status | reason       | since    | last heartbeat |
      | Ready | False  | AgentStopped | 09:06:00 | 09:06:00       |
    When 2 minutes pass
    And the agent on "web-01" registers again
    Then node "web-01" shows:
      | agent state         | Starting    |
      | restart count       | 2           |
      | last restart reason | clean start |
      | started at          | 09:00:00    |
    And the timeline of "web-01" shows, in order:
      | kind        | reason         | at       |
      | Registered  | linux          | 09:00:00 |
      | BecameReady | Ready          | 09:00:00 |
      | Restarted   | crash recovery | 09:05:00 |
      | Stopped     | Deregistered   | 09:06:00 |
      | Restarted   | clean start    | 09:08:00 |
    When 10 seconds pass
    And the agent on "web-01" reports healthy metrics
    Then node "web-01" shows:
      | agent state   | Ready |
      | restart count | 2     |
    And node "web-01" shows Ready True since 09:08:10, last heartbeat 09:08:10
    And the timeline of "web-01" shows, in order:
      | kind        | reason      | at       |
      | Restarted   | clean start | 09:08:00 |
      | BecameReady | Ready       | 09:08:10 |

  Scenario: Saying goodbye twice is not news
    Given the agent on "web-01" stops cleanly
    When 1 minute passes
    And the agent on "web-01" stops cleanly
    Then nothing was added to the log
    And node "web-01" shows:
      | agent state | Stopped |

  Scenario: A node deleted from the fleet that registers again starts afresh
    Given 5 minutes pass
    And the agent on "web-01" registers again
    When 1 minute passes
    And a client deletes the node "web-01"
    Then the request added exactly NodeDeleted to the log
    And listing the nodes shows exactly no nodes
    And asking for node "web-01" finds nothing
    When 1 hour passes
    And the linux node "web-01" registers through herd's agent
    Then the request added exactly NodeRegistered to the log
    And node "web-01" shows:
      | agent state         | Starting |
      | restart count       | 0        |
      | last restart reason | none     |
      | started at          | 10:06:00 |
      | last heartbeat      | none     |
    And node "web-01" has no conditions
    And the timeline of "web-01" shows, in order:
      | kind       | reason         | at       |
      | Restarted  | crash recovery | 09:05:00 |
      | Deleted    |                | 09:06:00 |
      | Registered | linux          | 10:06:00 |

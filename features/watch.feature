@without-reconcilers
Feature: Watching the fleet from any point in its history
  A Kubernetes watch resumes exactly where its client left off: from a
  resourceVersion (a position in herd's log) it sees every change made
  after it, in order, each with the node as it was right after that
  change — nothing twice, nothing missed. A change is one write, as in
  etcd: a report that records a heartbeat and turns conditions is one
  MODIFIED, at the position of the last event it appended. herd keeps five minutes of
  history for that; a client that comes back later is told 410 Expired,
  as kube-apiserver tells it, and lists again. Bookmarks tell a quiet
  watch how far it has got, and long listings page through one moment of
  the log.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A client that resumes sees exactly the changes it missed
    Given the linux node "web-01" registers through herd's agent
    And the agent on "web-01" reports healthy metrics
    And a client has listed the nodes
    When the linux node "web-02" registers through herd's agent
    And 4 minutes pass
    And the agent on "web-01" reports memory 95% used
    And a client deletes the node "web-02"
    And a client watches the nodes from the resourceVersion of its list
    Then the watch shows, in order:
      | type     | node   | caused by            | MemoryPressure |
      | ADDED    | web-02 | NodeRegistered       |                |
      | MODIFIED | web-01 | NodeConditionChanged | True           |
      | DELETED  | web-02 | NodeDeleted          |                |
    And these are every change to a node the log holds after the list
    When the linux node "web-03" registers through herd's agent
    Then the watch's next event is ADDED "web-03"

  Scenario: A resourceVersion older than the history herd keeps gets 410 Expired
    Given the linux node "web-01" registers through herd's agent
    And a client has listed the nodes
    And the linux node "web-02" registers through herd's agent
    When 6 minutes pass
    And a client watches the nodes from the resourceVersion of its list
    Then the watch ends with an ERROR event: 410 Expired
    When a client has listed the nodes
    And a client watches the nodes from the resourceVersion of its list
    And the agent on "web-01" reports healthy metrics
    Then the watch's next event is MODIFIED "web-01"

  Scenario: A quiet watch that allows bookmarks learns how far it has got
    Given the linux node "web-01" registers through herd's agent
    And a client watches the nodes from now, allowing bookmarks
    When 1 minute passes
    Then the watch shows a BOOKMARK at the log head

  Scenario: A watch ends when its time is up, telling how far it got
    Given the linux node "web-01" registers through herd's agent
    And a client watches the nodes from now for 30 seconds, allowing bookmarks
    When a client deletes the node "web-01"
    Then the watch's next event is DELETED "web-01"
    When 30 seconds pass
    Then the watch shows a BOOKMARK at the log head
    And the watch has ended

  Scenario: A watch that does not ask for bookmarks gets none
    Given the linux node "web-01" registers through herd's agent
    And a client watches the nodes from now
    When 1 minute passes
    And the linux node "web-02" registers through herd's agent
    Then the watch's next event is ADDED "web-02"

  Scenario: A client that asks for the initial state gets every node, then a bookmark that ends it
    Given the linux node "web-02" registers through herd's agent
    And the linux node "web-01" registers through herd's agent
    And the linux node "web-03" registers through herd's agent
    And a client deletes the node "web-03"
    When a client watches the nodes with sendInitialEvents
    Then the watch shows, in order:
      | type  | node   | caused by     |
      | ADDED | web-01 | current state |
      | ADDED | web-02 | current state |
    And the watch shows a BOOKMARK at the log head that marks the end of the initial events
    When the agent on "web-02" stops cleanly
    Then the watch's next event is MODIFIED "web-02"

  Scenario: A watch of one node sees that node only
    Given the linux node "web-01" registers through herd's agent
    And the linux node "web-02" registers through herd's agent
    And a client watches the node "web-02" from now
    When the agent on "web-01" stops cleanly
    And the agent on "web-02" stops cleanly
    Then the watch's next event is MODIFIED "web-02"

  Scenario: A list shows every change acknowledged before it
    herd answers lists from the memory its watches are served from, once
    that memory has caught up with the log's head: a client never lists
    an older fleet than the one its last write left.
    Given the linux node "web-01" registers through herd's agent
    Then listing the nodes shows exactly "web-01"
    When the linux node "web-02" registers through herd's agent
    Then listing the nodes shows exactly "web-01" and "web-02"
    When a client deletes the node "web-01"
    Then listing the nodes shows exactly "web-02"
    When the linux node "web-01" registers through herd's agent
    Then listing the nodes shows exactly "web-01" and "web-02"

  Scenario: The pages of a long listing all show the moment of the first
    Given these nodes have registered through herd's agent:
      | name   | kind  |
      | web-01 | linux |
      | web-02 | linux |
      | web-03 | linux |
      | web-04 | linux |
      | web-05 | linux |
    When a client reads the first page of nodes, 2 at a time
    And a client deletes the node "web-04"
    And the linux node "web-06" registers through herd's agent
    And the agent on "web-05" stops cleanly
    And the client reads the remaining pages
    Then the pages show exactly "web-01", "web-02", "web-03", "web-04" and "web-05", as they were when the first page was read
    And listing the nodes shows exactly "web-01", "web-02", "web-03", "web-05" and "web-06"

  Scenario: A listing continued after the history herd keeps is refused with 410 Expired
    Given these nodes have registered through herd's agent:
      | name   | kind  |
      | web-01 | linux |
      | web-02 | linux |
      | web-03 | linux |
    When a client reads the first page of nodes, 2 at a time
    And the agent on "web-03" stops cleanly
    And 6 minutes pass
    And the client reads the next page
    Then the request fails with 410 Expired
    And the error offers a continue token that lists the rest as it is now

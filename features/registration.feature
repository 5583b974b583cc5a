@without-reconcilers
Feature: Registering nodes
  Machines join the fleet by registering: herd's agent on a Linux or illumos
  host, a Pico posting its Node, a Kubernetes client creating one. herd lists
  each node with what it said about itself, and its timeline starts there.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: An agent registers and is listed with what it said about itself
    When the illumos node "zone-host-01" registers through herd's agent with:
      | labels      | rack=r1, zone=a              |
      | capacity    | cpu=8, memory=32Gi, pods=40  |
      | allocatable | cpu=7500m, memory=30Gi, pods=40 |
    Then the request added exactly NodeRegistered to the log
    And listing the nodes shows exactly "zone-host-01"
    And node "zone-host-01" shows:
      | kind                 | illumos  |
      | label rack           | r1       |
      | label zone           | a        |
      | capacity cpu         | 8        |
      | capacity memory      | 32Gi     |
      | capacity pods        | 40       |
      | allocatable cpu      | 7500m    |
      | allocatable memory   | 30Gi     |
      | agent state          | Starting |
      | restart count        | 0        |
      | last restart reason  | none     |
      | started at           | 09:00:00 |
      | last heartbeat       | none     |
    And the resourceVersion of "zone-host-01" is the log position of its latest event
    And the timeline of "zone-host-01" shows, in order:
      | kind       | reason  | at       |
      | Registered | illumos | 09:00:00 |

  Scenario: Nodes of every kind are listed together and found by their labels
    When these nodes have registered through herd's agent:
      | name         | kind    | labels             |
      | web-01       | linux   | role=web, rack=r1  |
      | web-02       | linux   | role=web, rack=r2  |
      | zone-host-01 | illumos | role=zones, rack=r1 |
    And the rp2040 node "pico-07" is created through the Kubernetes API
    Then listing the nodes shows exactly "pico-07", "web-01", "web-02" and "zone-host-01"
    And listing the nodes with label selector "role=web" shows exactly "web-01" and "web-02"
    And listing the nodes with label selector "rack=r1" shows exactly "web-01" and "zone-host-01"
    And listing the nodes with label selector "herd.dev/kind=rp2040" shows exactly "pico-07"
    And listing the nodes with label selector "role=database" shows exactly no nodes
    And node "pico-07" shows:
      | kind        | rp2040   |
      | agent state | Starting |

  Scenario: herd's kind label is the node's, and a client's own herd.dev/ labels are kept
    Given the illumos node "zone-01" is created through the Kubernetes API with:
      | labels | herd.dev/demo=true |
    When a client labels node "zone-01" with "herd.dev/kind=illumos"
    Then the request succeeds
    And node "zone-01" shows:
      | kind                | illumos |
      | label herd.dev/demo | true    |
    And listing the nodes with label selector "herd.dev/demo=true" shows exactly "zone-01"
    When a client labels node "zone-01" with "herd.dev/kind=linux"
    Then the request fails with 422 Invalid
    And the error names the field "metadata.labels[herd.dev/kind]"
    And node "zone-01" shows:
      | kind | illumos |

  Scenario: Creating a node that already exists through the Kubernetes API is a conflict
    Given the linux node "web-01" is created through the Kubernetes API with:
      | labels   | role=web            |
      | capacity | cpu=4, memory=16Gi  |
    When the node "web-01" is created through the Kubernetes API again
    Then the request fails with 409 AlreadyExists
    And nothing was added to the log
    And node "web-01" shows:
      | agent state   | Starting |
      | restart count | 0        |
    And the timeline of "web-01" shows, in order:
      | kind       | reason |
      | Registered | linux  |

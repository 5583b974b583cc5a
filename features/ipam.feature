Feature: Pod addresses
  Every pod herd schedules gets an address of its own before its node's
  runtime provisions it: the lowest free address of the first pool
  (--pod-cidr, 10.88.0.0/16 unless told otherwise) that has one. A pool's
  network address plus one is its pods' gateway; the network and broadcast
  addresses are never handed out. A pod keeps its address for its whole
  life, and is never given a second one. A pod that finds every pool full
  stays Pending, says which pool and how full, and takes the next address
  that frees.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And herd hands out pod addresses from "10.88.0.0/24"
    And node "zone-01" has registered and is Ready

  Scenario: Pods get the lowest free addresses, after the gateway
    Given the namespace "shop" exists
    When pod "default/web-1" is created on node "zone-01"
    And pod "default/web-2" is created on node "zone-01"
    And pod "shop/cart" is created on node "zone-01"
    Then pod "default/web-1" has IP "10.88.0.2"
    And pod "default/web-1" is Running with condition herd.dev/IPAllocated True: "10.88.0.2 from pool 10.88.0.0/24"
    And the addresses in use are:
      | pool         | address   | pod           |
      | 10.88.0.0/24 | 10.88.0.2 | default/web-1 |
      | 10.88.0.0/24 | 10.88.0.3 | default/web-2 |
      | 10.88.0.0/24 | 10.88.0.4 | shop/cart     |

  Scenario: A pod gets its address when it is scheduled, not before
    Given an operator cordons "zone-01"
    When pod "default/web-1" is created without a node
    Then pod "default/web-1" has no IP
    And the log holds 0 "IPAllocated" events
    When an operator uncordons "zone-01"
    Then pod "default/web-1" is bound to "zone-01"
    And pod "default/web-1" has IP "10.88.0.2"

  Scenario: A pod is given one address, however often herd looks at it
    When pod "default/web-1" is created on node "zone-01"
    And herd restarts
    And 2 minutes pass
    Then pod "default/web-1" has IP "10.88.0.2"
    And the log holds 1 "IPAllocated" event
    And the log holds 1 "PodIPAssigned" event

  Scenario: A full pool leaves the pod Pending and says how full it is
    Given herd hands out pod addresses from "10.88.0.0/30"
    When pod "default/web-1" is created on node "zone-01"
    And pod "default/web-2" is created on node "zone-01"
    Then pod "default/web-1" has IP "10.88.0.2"
    And pod "default/web-2" has no IP
    And pod "default/web-2" is Pending with condition herd.dev/IPAllocated False: "IP pool 10.88.0.0/30 exhausted: 1 of 1 addresses in use"

  Scenario: A finalized pod gives its address back, and the pod waiting longest takes it
    Given herd hands out pod addresses from "10.88.0.0/30"
    When pod "default/web-1" is created on node "zone-01"
    And pod "default/web-2" is created on node "zone-01"
    Then pod "default/web-2" has no IP
    When a client deletes pod "default/web-1"
    Then pod "default/web-1" is gone
    And pod "default/web-2" has IP "10.88.0.2"
    And pod "default/web-2" is Running with condition herd.dev/IPAllocated True: "10.88.0.2 from pool 10.88.0.0/30"
    And the addresses in use are:
      | pool         | address   | pod           |
      | 10.88.0.0/30 | 10.88.0.2 | default/web-2 |
    And the log holds 1 "IPReleased" event

  Scenario: A second pool serves when the first is full
    Given herd hands out pod addresses from "10.88.0.0/30" and "10.99.0.0/24"
    When pod "default/web-1" is created on node "zone-01"
    And pod "default/web-2" is created on node "zone-01"
    Then the addresses in use are:
      | pool         | address   | pod           |
      | 10.88.0.0/30 | 10.88.0.2 | default/web-1 |
      | 10.99.0.0/24 | 10.99.0.2 | default/web-2 |

  Scenario: Overlapping pools are refused at start
    When herd is started with pod addresses from "10.88.0.0/16" and "10.88.7.0/24"
    Then herd refuses to start, saying "--pod-cidr 10.88.7.0/24 overlaps 10.88.0.0/16"

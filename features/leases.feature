Feature: A node's lease is its heartbeat
  As in Kubernetes, a kubelet keeps a Lease named after its node in the
  namespace kube-node-lease and renews it every few seconds; each renewal
  counts as the node's heartbeat. A node whose lease is renewed stays
  Ready; one whose lease stops being renewed goes NotReady once the node
  monitor grace period (40 seconds) has passed, as a silent node does.
  herd keeps only the newest of a lease's old renewals, as it thins
  heartbeats.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A renewed lease keeps a node Ready
    Given node "renewing" has registered and is Ready
    And node "silent" has registered and is Ready
    And the kubelet of "renewing" creates its lease
    When "renewing" renews its lease every 10 seconds for 60 seconds
    Then node "renewing" is Ready
    And node "silent" is NotReady
    And the lease of "renewing" was last renewed at 09:01:00

  Scenario: A lease that stops being renewed lets its node go NotReady
    Given node "n1" has registered and is Ready
    And node "n2" has registered and is Ready
    And the kubelet of "n1" creates its lease
    And the kubelet of "n2" creates its lease
    When "n1" renews its lease every 10 seconds for 30 seconds
    And "n2" renews its lease every 10 seconds for 30 seconds
    Then node "n1" is Ready
    When "n2" renews its lease every 10 seconds for 60 seconds
    Then node "n1" is NotReady
    And node "n2" is Ready

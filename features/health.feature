Feature: Nodes that fall silent
  herd watches every node's heartbeat with Kubernetes' own rules and
  settings: every 5 seconds (--node-monitor-period) it checks each node,
  and a node silent for more than 40 seconds (--node-monitor-grace-period)
  has its conditions turned Unknown, "Kubelet stopped posting node
  status.", by herd's clock alone. Taints follow the conditions, as in
  Kubernetes, so that workloads can react. When most of the fleet falls
  silent at once, herd is more likely the one cut off: it still marks the
  nodes, but evicts nothing new (in a fleet of more than 50 nodes, one node
  every 100 seconds, as Kubernetes slows a large zone's evictions).

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: 39 seconds of silence is fine, 41 is not
    Given node "web-01" has registered and is Ready
    And node "web-02" has registered and is Ready
    When 39 seconds pass
    And the agent on "web-02" reports healthy metrics
    Then node "web-01" shows Ready True since 09:00:00, last heartbeat 09:00:00
    And node "web-01" has no taints
    When 2 seconds pass
    Then node "web-01" has these conditions:
      | type           | status  | since    | last heartbeat | reason            |
      | Ready          | Unknown | 09:00:41 | 09:00:00       | NodeStatusUnknown |
      | MemoryPressure | Unknown | 09:00:41 | 09:00:00       | NodeStatusUnknown |
      | DiskPressure   | Unknown | 09:00:41 | 09:00:00       | NodeStatusUnknown |
      | PIDPressure    | Unknown | 09:00:41 | 09:00:00       | NodeStatusUnknown |
      | HighLoad       | Unknown | 09:00:41 | 09:00:00       | NodeStatusUnknown |
    And the Ready condition of "web-01" says "Kubelet stopped posting node status."
    And node "web-01" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    And the timeline of "web-01" shows, in order:
      | kind            | type    | reason            | at       |
      | Registered      | Normal  | linux             | 09:00:00 |
      | BecameReady     | Normal  | Ready             | 09:00:00 |
      | HeartbeatMissed | Warning | NodeStatusUnknown | 09:00:41 |
      | BecameNotReady  | Warning | NodeStatusUnknown | 09:00:41 |

  Scenario: A node's timeline read a page at a time gives every entry once
    A mark of silence is one event with several entries (the heartbeat
    missed, Ready lost, each condition turned Unknown); a page that ends
    inside them goes on, with its continue, from the entry after.
    Given node "web-01" has registered and is Ready
    When 41 seconds pass
    Then the timeline of "web-01" shows, in order:
      | kind            | reason            |
      | Registered      | linux             |
      | HeartbeatMissed | NodeStatusUnknown |
      | BecameNotReady  | NodeStatusUnknown |
    And the timeline of "web-01" read 1 entry a page gives every entry once
    And the timeline of "web-01" read 2 entries a page gives every entry once
    And the timeline of "web-01" read 3 entries a page gives every entry once

  Scenario: A condition already Unknown keeps the time it went Unknown
    Given node "web-01" has registered and is Ready
    When 45 seconds pass
    And 5 minutes pass
    And 30 seconds pass
    Then node "web-01" shows Ready Unknown since 09:00:45, last heartbeat 09:00:00
    And the log holds 1 "HeartbeatMissed" event

  Scenario: Marking a silent node writes one event that says it all
    Given node "web-01" has registered and is Ready
    When 45 seconds pass
    Then node "web-01" shows Ready Unknown since 09:00:45, last heartbeat 09:00:00
    And node "web-01" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
    And the log holds 1 "HeartbeatMissed" event
    And the log holds 0 "NodeBecameNotReady" events
    And the log holds 0 "NodeTainted" events
    And the timeline of "web-01" shows, in order:
      | kind             | type    | reason            | at       |
      | HeartbeatMissed  | Warning | NodeStatusUnknown | 09:00:45 |
      | ConditionChanged | Warning | NodeStatusUnknown | 09:00:45 |
      | BecameNotReady   | Warning | NodeStatusUnknown | 09:00:45 |
      | Tainted          | Warning | Ready is Unknown  | 09:00:45 |

  Scenario: A lone node that falls silent is marked but not evicted
    Given node "web-01" has registered and is Ready
    When 45 seconds pass
    Then node "web-01" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
    And the log holds 1 "FleetDisruptionStarted" event

  Scenario: A node that never reports is marked after the startup grace period
    Given the linux node "db-01" registers through herd's agent
    When 55 seconds pass
    Then node "db-01" has no conditions
    When 10 seconds pass
    Then node "db-01" shows Ready Unknown since 09:01:05, last heartbeat 09:00:00
    And the Ready condition of "db-01" says "Kubelet never posted node status."

  Scenario: A heartbeat after the silence makes the node Ready again and lifts the taints
    Given node "web-01" has registered and is Ready
    And 45 seconds pass
    Then node "web-01" is in agent state Lost
    When the agent on "web-01" reports healthy metrics
    Then node "web-01" shows Ready True since 09:00:45, last heartbeat 09:00:45
    And node "web-01" is in agent state Ready
    And node "web-01" has no taints
    And the timeline of "web-01" shows, in order:
      | kind            | at       |
      | HeartbeatMissed | 09:00:45 |
      | BecameNotReady  | 09:00:45 |
      | BecameReady     | 09:00:45 |
      | Untainted       | 09:00:45 |

  Scenario Outline: Pressure taints come and go with their conditions
    Given node "web-01" has registered and is Ready
    When the agent on "web-01" reports <what> 95% <verb>
    Then node "web-01" has the taints:
      | key   | effect     |
      | <key> | NoSchedule |
    When the agent on "web-01" reports <what> 50% <verb>
    Then node "web-01" has no taints

    Examples:
      | what   | verb   | key                                |
      | memory | used   | node.kubernetes.io/memory-pressure |
      | disk   | used   | node.kubernetes.io/disk-pressure   |
      | PIDs   | in use | node.kubernetes.io/pid-pressure    |

  Scenario: A node that says it is not ready is tainted not-ready
    Given the kubelet node "k8s-01" is created through the Kubernetes API
    When "k8s-01" patches its status as "application/strategic-merge-patch+json" with:
      """
      {"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]}}
      """
    Then node "k8s-01" has the taints:
      | key                          | effect     |
      | node.kubernetes.io/not-ready | NoSchedule |
      | node.kubernetes.io/not-ready | NoExecute  |

  Scenario: When most of the fleet falls silent together, herd evicts nothing
    Given these nodes have registered through herd's agent:
      | name   | kind  |
      | web-01 | linux |
      | web-02 | linux |
      | web-03 | linux |
      | web-04 | linux |
    And the agent on "web-01" reports healthy metrics
    And the agent on "web-02" reports healthy metrics
    And the agent on "web-03" reports healthy metrics
    And the agent on "web-04" reports healthy metrics
    When 30 seconds pass
    And the agent on "web-04" reports healthy metrics
    And 15 seconds pass
    Then node "web-01" shows Ready Unknown since 09:00:45, last heartbeat 09:00:00
    And node "web-01" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
    And the Ready condition of "web-01" says "herd suspects it is cut off itself"
    And node "web-04" has no taints
    And the log holds 1 "FleetDisruptionStarted" event
    When the agent on "web-01" reports healthy metrics
    And the agent on "web-02" reports healthy metrics
    Then the log holds 1 "FleetDisruptionEnded" event
    And node "web-03" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |

  Scenario: A node tainted before most of the fleet fell silent keeps its taint, until every node is silent
    Given these nodes have registered through herd's agent:
      | name   | kind  |
      | web-01 | linux |
      | web-02 | linux |
      | web-03 | linux |
      | web-04 | linux |
    And the agent on "web-01" reports healthy metrics
    When 45 seconds pass while "web-02", "web-03" and "web-04" keep reporting
    Then node "web-01" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    When 45 seconds pass while "web-04" keeps reporting
    Then the log holds 1 "FleetDisruptionStarted" event
    And node "web-01" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    And node "web-02" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
    When 45 seconds pass
    Then node "web-01" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
    And node "web-04" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |

  Scenario: herd restarted between a heartbeat and the deadline still notices, a grace period after its start
    Given node "web-01" has registered and is Ready
    And 20 seconds pass
    When herd restarts
    And 25 seconds pass
    Then node "web-01" shows Ready True since 09:00:00, last heartbeat 09:00:00
    When 20 seconds pass
    Then node "web-01" shows Ready Unknown since 09:01:05, last heartbeat 09:00:00

  @health-off
  Scenario: With the health reconciler switched off nothing is marked
    Given node "web-01" has registered and is Ready
    When 10 minutes pass
    Then node "web-01" shows Ready True since 09:00:00, last heartbeat 09:00:00
    And node "web-01" has no taints

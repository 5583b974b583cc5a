@without-reconcilers
Feature: The views are the log, replayed
  Every view herd answers from can be rebuilt from the log alone, and the
  rebuilt view equals the live one byte for byte. After a busy morning in
  the fleet, `herd replay` must change nothing.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: After a busy morning the rebuilt views equal the live ones
    Given these nodes have registered through herd's agent:
      | name         | kind    | labels              | capacity                    |
      | web-01       | linux   | role=web, rack=r1   | cpu=4, memory=16Gi, pods=20 |
      | web-02       | linux   | role=web, rack=r2   | cpu=4, memory=16Gi, pods=20 |
      | zone-host-01 | illumos | role=zones, rack=r1 | cpu=32, memory=256Gi        |
    And the rp2040 node "pico-07" is created through the Kubernetes API
    And the kubelet node "k8s-worker-3" is created through the Kubernetes API
    When 10 seconds pass
    And the agent on "web-01" reports healthy metrics
    And the agent on "web-02" reports healthy metrics
    And the agent on "zone-host-01" reports healthy metrics
    And "pico-07" patches its status as "application/merge-patch+json" with:
      """
      {"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "PicoReady",
        "lastHeartbeatTime": "1970-01-01T00:00:10Z", "lastTransitionTime": "1970-01-01T00:00:01Z"}]}}
      """
    And "k8s-worker-3" patches its status as "application/strategic-merge-patch+json" with:
      """
      {"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"},
                                 {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory"}]}}
      """
    And 10 seconds pass
    And the agent on "web-01" reports memory 95% used
    And the agent on "web-02" reports a load of 9 on 4 CPUs
    And the agent on "zone-host-01" reports the same metrics again
    And 10 seconds pass
    And the agent on "web-01" reports the same metrics again
    And the agent on "web-02" reports PIDs 91% in use
    And the agent on "web-02" registers again
    And the agent on "zone-host-01" stops cleanly
    And 1 minute passes
    And the agent on "zone-host-01" registers again
    And the agent on "zone-host-01" reports disk 93% used
    And the agent on "web-01" reports memory 50% used
    And the agent on "web-02" reports healthy metrics
    And "k8s-worker-3" patches its status as "application/strategic-merge-patch+json" with:
      """
      {"status": {"conditions": [{"type": "MemoryPressure", "status": "True", "reason": "KubeletHasInsufficientMemory"}]}}
      """
    And a client deletes the node "pico-07"
    And 5 minutes pass
    And a client deletes the node "web-02"
    And the linux node "web-02" registers through herd's agent
    And the agent on "web-02" reports healthy metrics
    Then listing the nodes shows exactly "k8s-worker-3", "web-01", "web-02" and "zone-host-01"
    And node "zone-host-01" shows:
      | agent state         | Ready       |
      | restart count       | 1           |
      | last restart reason | clean start |
    And node "web-02" shows:
      | restart count | 0        |
      | started at    | 09:06:30 |
    And rebuilding the views from the log gives exactly the live views

  Scenario: An empty fleet replays to empty views
    Then listing the nodes shows exactly no nodes
    And rebuilding the views from the log gives exactly the live views

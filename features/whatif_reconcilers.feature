Feature: The what-if runs herd's own reconcilers on the past
  herd what-if (and herd replay --what-if) starts herd's engine again on a
  scratch copy of the log as it stood at the window's start, on a simulated
  clock, and feeds it what the nodes and the operators sent in the window,
  at the times they sent it. herd's reconcilers — the health rules, NoExecute
  evictions, the scheduler, drains, ReplicaSets, Deployments and the rest —
  decide everything else again, under the settings asked about, with the
  inputs asked about. With herd's own settings and inputs they make every
  decision herd made.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready
    And node "n2" has registered and is Ready
    And node "n3" has registered and is Ready
    And ReplicaSet "cache" keeps 3 pods labelled app=cache, tolerating an unreachable node for 10 seconds

  Scenario: With herd's own settings, yesterday's silent node, Deployment and drain come out as they did
    Given Deployment "api" runs 2 pods of image "api:1" with a surge of 1 and none unavailable
    When 30 seconds pass while "n2" and "n3" keep reporting
    And an operator drains "n2"
    And 2 minutes pass while "n2" and "n3" keep reporting
    Then the window since 09:00:00 holds decisions of "health", "noexecute", "scheduler", "drain", "replicaset" and "deployment"
    And the what-if since 09:00:00 with herd's own settings makes every decision herd's reconcilers made, and no other

  Scenario: The same what-if asked again answers the same, times and all
    Given Deployment "api" runs 2 pods of image "api:1" with a surge of 1 and none unavailable
    And node "k1" has registered and is Ready
    And node "k2" has registered and is Ready
    And the kubelet of "k1" creates its lease
    And the kubelet of "k2" creates its lease
    When 30 seconds pass while "n2", "n3", "k1" and "k2" keep reporting
    And "k1" renews its lease every 40 seconds for 120 seconds
    And "k2" renews its lease every 41 seconds for 123 seconds
    And 1 minute passes while "n1", "n3" and "k1" keep reporting
    Then the window since 09:00:00 holds decisions of "health", "noexecute", "scheduler", "replicaset" and "deployment"
    And the what-if since 09:00:00 with a node-monitor-grace-period of 20s answers the same three times, byte for byte, nodes marked and pods evicted

  @node-runtime-none
  Scenario: What a client said of the pods herd's ReplicaSet made reaches the what-if's own pods of the ReplicaSet
    When a client reports the pods of ReplicaSet "cache" Running
    And 30 seconds pass while "n1", "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 with herd's own settings makes every decision herd's reconcilers made, and no other

  Scenario: A shorter grace period yesterday would have evicted a briefly silent node's pods, and placed them anew
    When 35 seconds pass while "n2" and "n3" keep reporting
    And the agent on "n1" reports the same metrics again
    And 1 minute passes while "n1", "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 with a node-monitor-grace-period of 20s evicts pods of "cache" from "n1" that herd left there, and the scheduler places them anew elsewhere

  Scenario: A change to a reconciler is followed by the what-if
    When 2 minutes pass while "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 without the "noexecute" reconciler finds that the pods of "cache" herd evicted from "n1" would have stayed

  Scenario: Three nodes failing at once would have been taken for herd being cut off
    When 2 minutes pass while "n1", "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 with "n1", "n2" and "n3" failing at 09:00:30 marks them NotReady too, and herd would have counted the fleet disrupted

  Scenario: A higher disruption threshold would have evicted from three of four nodes that fell silent together
    Given node "n4" has registered and is Ready
    When 2 minutes pass while "n4" keeps reporting
    Then the log holds 1 "FleetDisruptionStarted" event
    And the what-if since 09:00:00 with an unhealthy-fleet-threshold of 0.8 evicts pods of "cache" from "n1" that herd left there, and the scheduler places them anew elsewhere
    And an operator asking herd's API what if the unhealthy-fleet-threshold had been 0.8 since 09:00:00 is told the pods of "cache" herd left on "n1" would have been evicted
    And an operator asking herd's API a what-if since 09:00:00 with an unhealthy-fleet-threshold of 1.5 is refused, naming "spec.settings.unhealthyFleetThreshold"

  Scenario: An eviction rate taints silent nodes one at a time, and without it a pod would have been evicted sooner
    Given herd taints at most 0.05 nodes a second NoExecute
    And node "n4" has registered and is Ready
    And node "n5" has registered and is Ready
    And pod "web" runs on "n2", tolerating an unreachable node for 10 seconds
    When 50 seconds pass while "n3", "n4" and "n5" keep reporting
    Then node "n1" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    And node "n2" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
    When 30 seconds pass while "n3", "n4" and "n5" keep reporting
    Then node "n2" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    And pod "web" is gone
    And the what-if since 09:00:00 with herd's own settings makes every decision herd's reconcilers made, and no other
    And the what-if since 09:00:00 with a node-eviction-rate of 0 evicts pod "web" from "n2" sooner

  Scenario: In a large fleet a disruption slows NoExecute taints rather than stopping them
    Given herd counts a fleet of more than 3 nodes as large
    And node "n4" has registered and is Ready
    When 2 minutes pass while "n4" keeps reporting
    Then the log holds 1 "FleetDisruptionStarted" event
    And the Ready condition of "n2" says "herd suspects it is cut off itself and slows NoExecute taints to 0.01 nodes a second"
    And node "n1" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    And node "n2" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
    When 40 seconds pass while "n4" keeps reporting
    Then node "n2" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    And node "n3" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
    And the what-if since 09:00:00 with herd's own settings makes every decision herd's reconcilers made, and no other
    And the what-if since 09:00:00 with a large-fleet-size-threshold of 50 finds that the pods of "cache" herd evicted from "n1" would have stayed

  Scenario: A drain that did not happen
    When 2 minutes pass while "n1", "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 with "n1" drained at 09:00:40 evicts the pods of "cache" from it, and the scheduler places them anew elsewhere
    And the what-if since 09:00:00 with "n1", "n2" and "n3" drained at 09:00:40 finds ReplicaSet "cache" would have been below its desired availability for longer

  Scenario: A stricter budget would have held a drain back
    Given a PodDisruptionBudget "cache" lets at most 1 pod labelled app=cache be unavailable
    When 30 seconds pass while "n1", "n2" and "n3" keep reporting
    And an operator drains "n1"
    And 90 seconds pass while "n1", "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 with PodDisruptionBudget "cache" at maxUnavailable 0 finds that the pods of "cache" herd evicted from "n1" would have stayed
    And the what-if since 09:00:00 with PodDisruptionBudget "cache" at minAvailable 2 finds that the pods of "cache" herd evicted from "n1" were evicted the same
    And an operator asking herd's API what if PodDisruptionBudget "cache" had been maxUnavailable 0 since 09:00:00 is told the pods of "cache" herd evicted from "n1" would have stayed
    And an operator asking herd's API what if PodDisruptionBudget "nope" had been maxUnavailable 0 since 09:00:00 is refused, naming "spec.budgets[0]"
    And an operator asking herd's API what if PodDisruptionBudget "cache" had been maxUnavailable 0 since 08:59:59 is refused, naming "spec.budgets[0]" and saying "it was created at 2026-03-01T09:00:00Z: change it then or later"

  Scenario: A stricter budget would have refused an eviction a client asked for
    Given a PodDisruptionBudget "cache" lets at most 1 pod labelled app=cache be unavailable
    When 30 seconds pass while "n1", "n2" and "n3" keep reporting
    And a client evicts a pod of ReplicaSet "cache"
    Then the eviction is accepted
    When 30 seconds pass while "n1", "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 with PodDisruptionBudget "cache" at maxUnavailable 0 finds that the eviction a client asked of a pod of "cache" would have been refused, and the pod stays
    And the what-if since 09:00:00 with herd's own settings makes every decision herd's reconcilers made, and no other

  Scenario: A client asks again for an eviction a budget refused, as kubectl drain does, until the budget allows it
    Given a PodDisruptionBudget "cache" lets at most 1 pod labelled app=cache be unavailable
    When 30 seconds pass while "n1", "n2" and "n3" keep reporting
    And a client evicts a pod of ReplicaSet "cache"
    Then the eviction is accepted
    When 30 seconds pass while "n1", "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 with PodDisruptionBudget "cache" at maxUnavailable 0 until 09:00:47 finds that the eviction a client asked of a pod of "cache" would have been refused, then granted at the client's first ask after 09:00:47, asking every 5 seconds
    And the same what-if with a client that asks once finds the eviction refused, and the pod stays

  Scenario: A client asking again finds the pod gone otherwise, its node having failed
    Given a PodDisruptionBudget "cache" lets at most 1 pod labelled app=cache be unavailable
    When 30 seconds pass while "n1", "n2" and "n3" keep reporting
    And a client evicts a pod of ReplicaSet "cache"
    Then the eviction is accepted
    When 2 minutes pass while "n1", "n2" and "n3" keep reporting
    Then the what-if since 09:00:00 with PodDisruptionBudget "cache" at maxUnavailable 0 and the evicted pod's node failing at 09:00:31 finds that the client, asking again, found the pod gone otherwise

  Scenario: A drain that did not happen is what a StatefulSet's pod would have been evicted by, not its earlier rolling update
    Given StatefulSet "db" keeps 2 pods of "db:1"
    When StatefulSet "db" is given the image "db:2" from ordinal 0 up
    Then StatefulSet "db" has these pods Running:
      | pod  | image |
      | db-0 | db:2  |
      | db-1 | db:2  |
    When 2 minutes pass while "n1", "n2" and "n3" keep reporting
    And an operator asks herd's API what if the node of pod "db-0" had been drained at 09:01:40, since 09:00:00
    Then the answer says pod "db-0" would have been evicted by the drain, its causes starting from the drain's eviction

  Scenario: An operator asks the what-if of herd's API and reads the answer's causes
    When 2 minutes pass while "n1", "n2" and "n3" keep reporting
    And an operator asks herd's API what if "n1" had been drained at 09:00:40, since 09:00:00
    Then the answer says the pods of "cache" would have been evicted from "n1" by the drain, with the drain among their causes
    And an operator asking herd's API a what-if since 09:00:00 with a node-monitor-grace-period of -5s is refused, naming "spec.settings.nodeMonitorGracePeriod"
    And an operator asking herd's API what if "n1" had been drained at 09:05:00, since 09:00:00, is refused, naming "spec.drains[0].at" and saying "in the future"
    And an operator asking herd's API what if "n1" had been drained at 09:01:30, since 09:00:00 until 09:01:00, is refused, naming "spec.drains[0]" and saying "after the window's end 2026-03-01T09:01:00Z"

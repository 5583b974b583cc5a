Feature: A pod is not ready while its node is not Ready
  herd hears how a pod's containers are through the pod's node. While the
  node's Ready is not True (it said so, or herd stopped hearing from it)
  nobody knows whether its pods still serve, so herd marks every pod of
  the node that was Ready not ready, as Kubernetes does: a workload counts
  them out of its ready replicas and a disruption budget out of its
  healthy pods. The pods keep running; once the node reports again, its
  runtime says they are Ready again.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready

  Scenario: A silent node's pods are not ready until it reports again
    Given pod "web" runs on "n1"
    And ReplicaSet "cache" keeps 2 pods labelled app=cache
    And ReplicaSet "cache" has 2 pods Running
    And a PodDisruptionBudget "cache" lets at most 1 pod labelled app=cache be unavailable
    And ReplicaSet "cache" counts 2 ready replicas
    And PodDisruptionBudget "cache" allows 1 disruption
    When 2 minutes pass
    Then pod "web" has condition Ready=False
    And pod "web" is Running
    And ReplicaSet "cache" counts 0 ready replicas
    And ReplicaSet "cache" has 2 pods Running
    And PodDisruptionBudget "cache" allows 0 disruptions
    And herd explains pod "web": "not ready", made so by PodMarkedNotReady of "system:herd:podready", because of HeartbeatMissed
    When the agent on "n1" reports the same metrics again
    Then pod "web" has condition Ready=True
    And ReplicaSet "cache" counts 2 ready replicas
    And PodDisruptionBudget "cache" allows 1 disruption

Feature: Disruption budgets hold evictions back
  A PodDisruptionBudget says how many of a workload's pods may be
  unavailable at once. herd counts the pods it covers, and refuses an
  eviction that would leave fewer healthy pods than it asks for, as
  Kubernetes refuses it (429 TooManyRequests); a drain waits and tries
  again. Once a replacement pod is Running the budget allows the next
  eviction.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready
    And node "n2" has registered and is Ready

  Scenario: An eviction that would break a budget is refused and changes nothing; after a replacement pod is Running the eviction goes through
    Given ReplicaSet "web" keeps 3 pods labelled app=web
    And a PodDisruptionBudget "web" lets at most 1 pod labelled app=web be unavailable
    Then PodDisruptionBudget "web" allows 1 disruption
    When an operator cordons "n1"
    And an operator cordons "n2"
    And a client evicts a pod of ReplicaSet "web"
    Then the eviction is accepted
    And PodDisruptionBudget "web" allows 0 disruptions
    When a client evicts another pod of ReplicaSet "web"
    Then the answer is 429 TooManyRequests naming "Cannot evict pod as it would violate the pod's disruption budget."
    And nothing was added to the log
    And the pod the budget kept is Running and not being deleted
    When an operator uncordons "n2"
    Then ReplicaSet "web" has 3 pods Running
    And PodDisruptionBudget "web" allows 1 disruption
    When the client evicts the pod the budget kept again
    Then the eviction is accepted

Feature: ReplicaSets keep their pods running
  A ReplicaSet keeps a number of pods made from its template running: it
  makes the missing ones, deletes the surplus, makes again a pod that a
  drain evicts, and its pods go when it goes, as in Kubernetes.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready
    And node "n2" has registered and is Ready

  Scenario: The pods a drain evicts are made again on the other node
    Given ReplicaSet "web" keeps 4 pods labelled app=web
    Then ReplicaSet "web" has 4 pods Running
    When an operator drains "n1" with a grace period of 5 seconds
    And 5 seconds pass
    Then node "n1" is in agent state Drained
    And ReplicaSet "web" has 4 pods Running, none on "n1"

  Scenario: Scaling down deletes the surplus, and deleting the ReplicaSet deletes its pods
    Given ReplicaSet "web" keeps 3 pods labelled app=web
    When ReplicaSet "web" is scaled to 1
    Then ReplicaSet "web" has 1 pod Running
    When ReplicaSet "web" is deleted
    Then ReplicaSet "web" has no pods

  Scenario: A pod made by hand with a ReplicaSet's labels is taken in as it comes
    A pod created without an owner that a ReplicaSet's selector matches
    becomes one of the ReplicaSet's pods when it comes, not at the next
    resync, and the ReplicaSet deletes the one too many, as in Kubernetes.

    Given ReplicaSet "web" keeps 2 pods labelled app=web
    Then ReplicaSet "web" has 2 pods Running
    When a client creates pod "extra" with:
      """
      metadata:
        labels: {app: web}
      """
    Then the log holds 1 "PodOwnersChanged" event
    And the log holds 1 "PodDeletionRequested" event
    And ReplicaSet "web" has 2 pods Running

Feature: Deployments roll their pods from one template to the next
  A Deployment keeps a number of pods of its template through one
  ReplicaSet per revision of the template. A new template rolls out a few
  pods at a time, within the surge and the unavailability it allows; a
  scale in the middle of a rollout grows or shrinks each revision in
  proportion; an undo brings a revision back; deleting it deletes its
  ReplicaSets and pods, before it (foreground), after it (background), or
  not at all (orphan); and it adopts the ReplicaSets without an owner
  that its selector matches, as in Kubernetes.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready
    And node "n2" has registered and is Ready

  Scenario: A new image rolls out within its surge
    Given Deployment "web" runs 4 pods of image "web:1" with a surge of 1 and none unavailable
    Then Deployment "web" has 4 pods of image "web:1" Running
    When the image of Deployment "web" is set to "web:2"
    Then Deployment "web" has 4 pods of image "web:2" Running
    And Deployment "web" is at revision 2, its rollout complete
    And the log shows the ReplicaSets of Deployment "web" never asked for more than 5 pods together

  Scenario: An undo brings the earlier revision back
    Given Deployment "web" runs 2 pods of image "web:1" with a surge of 1 and none unavailable
    When the image of Deployment "web" is set to "web:2"
    Then Deployment "web" has 2 pods of image "web:2" Running
    When Deployment "web" is rolled back to revision 1
    Then Deployment "web" has 2 pods of image "web:1" Running
    And Deployment "web" is at revision 3, its rollout complete
    And Deployment "web" has 2 ReplicaSets

  Scenario: A Deployment scaled in the middle of a rollout grows each revision in proportion
    A rollout that cannot go on, its new pods finding no node, is neither
    hastened nor held back by a scale: as in Kubernetes, the new pods are
    shared out among the ReplicaSets in proportion to their size (of 8 + 1
    surge, 7 for the 4 running and 2 for the 1 pending), not all given to
    the new one.

    Given Deployment "web" runs 4 pods of image "web:1" with a surge of 1 and none unavailable
    Then Deployment "web" has 4 pods of image "web:1" Running
    When the pods of Deployment "web" are set to need a node labelled "gpu=yes"
    Then Deployment "web" has 4 pods Running and 1 Pending
    When Deployment "web" is scaled to 8 replicas
    Then Deployment "web" has 7 pods Running and 2 Pending

  Scenario: Deleted in the foreground, a Deployment goes after its pods
    Given Deployment "web" runs 2 pods of image "web:1" with a surge of 1 and none unavailable
    Then Deployment "web" has 2 pods of image "web:1" Running
    When Deployment "web" is deleted with propagation Foreground
    Then Deployment "web" is gone, with its ReplicaSets and pods

  Scenario: Deleted orphaning its dependents, a Deployment leaves its pods running
    Given Deployment "web" runs 2 pods of image "web:1" with a surge of 1 and none unavailable
    Then Deployment "web" has 2 pods of image "web:1" Running
    When Deployment "web" is deleted with propagation Orphan
    Then Deployment "web" is gone, its ReplicaSet kept by nothing and its 2 pods still Running

  Scenario: A Deployment created again takes back the ReplicaSet it left
    A Deployment deleted with its dependents orphaned, then created again
    with the same selector, adopts the ReplicaSet it left behind, pods and
    all, as in Kubernetes: no new pods start.

    Given Deployment "web" runs 2 pods of image "web:1" with a surge of 1 and none unavailable
    Then Deployment "web" has 2 pods of image "web:1" Running
    When Deployment "web" is deleted with propagation Orphan
    And Deployment "web" runs 2 pods of image "web:1" with a surge of 1 and none unavailable
    Then Deployment "web" has 2 pods of image "web:1" Running
    And Deployment "web" has 1 ReplicaSet
    And the log holds 2 "PodCreated" events

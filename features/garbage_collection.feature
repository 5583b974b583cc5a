Feature: Objects go with their owners
  Any object herd keeps (a ConfigMap, a pod, a ReplicaSet...) may name
  owners in its ownerReferences, of any kind herd serves. Once every
  owner it names is gone, herd's garbage collector deletes it, as
  Kubernetes' does; an owner deleted with its dependents orphaned only
  loses its place in their ownerReferences, whatever their kind. An owner
  deleted in the foreground stays until every object that names it with
  blockOwnerDeletion is gone. Owners that own each other in a ring all
  go once one of them is deleted.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready

  Scenario: A ConfigMap owned by a Deployment goes after it
    Given Deployment "web" runs 1 pod of image "web:1" with a surge of 1 and none unavailable
    And the ConfigMap "web-settings" is owned by Deployment "web", blocking its deletion
    Then the ConfigMap "web-settings" names Deployment "web" as its owner, blocking its deletion
    When Deployment "web" is deleted with propagation Background
    Then there is no ConfigMap "web-settings"

  Scenario: A ConfigMap stays when its Deployment is deleted orphaning it
    Given Deployment "web" runs 1 pod of image "web:1" with a surge of 1 and none unavailable
    And the ConfigMap "web-settings" is owned by Deployment "web", blocking its deletion
    When Deployment "web" is deleted with propagation Orphan
    Then the ConfigMap "web-settings" names no owner

  Scenario: A Deployment deleted in the foreground waits for a pod it owns directly
    Given Deployment "web" runs 1 pod of image "web:1" with a surge of 1 and none unavailable
    And a pod "helper" is owned by Deployment "web", blocking its deletion, and held by the finalizer "example.com/cleanup"
    When Deployment "web" is deleted with propagation Foreground
    Then pod "helper" is terminating
    And Deployment "web" stays, waiting for its dependents
    When the finalizer of pod "helper" is lifted
    Then pod "helper" is gone
    And there is no Deployment "web"

  Scenario: A Job stays, without its reference, when its owner is deleted orphaning it
    Given Deployment "web" runs 1 pod of image "web:1" with a surge of 1 and none unavailable
    And the Job "migrate" is owned by Deployment "web", blocking its deletion
    When Deployment "web" is deleted with propagation Orphan
    Then the Job "migrate" names no owner

  Scenario: A Deployment owned by another goes after it, with its pods
    Given Deployment "web" runs 1 pod of image "web:1" with a surge of 1 and none unavailable
    And the Deployment "metrics" of 1 pod of image "metrics:1" is owned by Deployment "web", blocking its deletion
    Then Deployment "metrics" has 1 pod of image "metrics:1" Running
    When Deployment "web" is deleted with propagation Background
    Then there is no Deployment "metrics"
    And no pod is labelled app=metrics

  Scenario: A Deployment stays, without its reference, when its owner is deleted orphaning it
    Given Deployment "web" runs 1 pod of image "web:1" with a surge of 1 and none unavailable
    And the Deployment "metrics" of 1 pod of image "metrics:1" is owned by Deployment "web", blocking its deletion
    When Deployment "web" is deleted with propagation Orphan
    Then the Deployment "metrics" names no owner
    And Deployment "metrics" has 1 pod of image "metrics:1" Running

  Scenario: A Deployment given another owner goes with that one, not the first
    Given Deployment "web" runs 1 pod of image "web:1" with a surge of 1 and none unavailable
    And Deployment "api" runs 1 pod of image "api:1" with a surge of 1 and none unavailable
    And the Deployment "metrics" of 1 pod of image "metrics:1" is owned by Deployment "web", blocking its deletion
    When the Deployment "metrics" is given Deployment "api" as its owner in place of the one it had
    And Deployment "web" is deleted with propagation Background
    Then Deployment "metrics" has 1 pod of image "metrics:1" Running
    When Deployment "api" is deleted with propagation Background
    Then there is no Deployment "metrics"
    And no pod is labelled app=metrics

  Scenario: What a Deployment creates blocks its deletion in the foreground
    Given Deployment "web" runs 2 pods of image "web:1" with a surge of 1 and none unavailable
    Then the pods of Deployment "web" name their ReplicaSet, which names the Deployment, each as controller blocking its deletion

  Scenario: Two ReplicaSets that own each other go once one is deleted
    Given ReplicaSets "ring-a" and "ring-b" own each other
    When ReplicaSet "ring-a" is deleted
    Then there is no ReplicaSet "ring-b"

  Scenario: The workload controllers' Events show in kubectl describe
    Given Deployment "web" runs 2 pods of image "web:1" with a surge of 1 and none unavailable
    When the operator runs:
      """
      kubectl describe deployment web
      """
    Then kubectl prints "Scaled up replica set web-"
    When the operator runs:
      """
      kubectl describe replicaset -l app=web
      """
    Then kubectl prints "SuccessfulCreate"

  Scenario: A change-cause annotated after the rollout shows in the rollout history
    Given Deployment "web" runs 1 pod of image "web:1" with a surge of 1 and none unavailable
    When the operator runs:
      """
      kubectl annotate deployment/web kubernetes.io/change-cause=first-release
      """
    And the operator runs:
      """
      kubectl rollout history deployment/web
      """
    Then kubectl prints "first-release"

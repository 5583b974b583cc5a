Feature: Pods are evicted from nodes with NoExecute taints they do not tolerate
  As Kubernetes' taint manager does, herd evicts a pod from a node with a
  NoExecute taint: at once when the pod does not tolerate it, after the
  smallest tolerationSeconds of the tolerations that match (counted from
  when the taint was put on, or the pod bound, whichever is later), never
  when the toleration has no limit. Taking the taint off in time cancels
  the eviction. An evicted pod is marked DisruptionTarget
  (DeletionByTaintManager) and deleted with its own grace period. Every pod
  tolerates node.kubernetes.io/not-ready and unreachable for 300 seconds
  unless it says otherwise, so pods leave a node that stays unreachable
  after five minutes.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready

  Scenario: A pod that does not tolerate a NoExecute taint is evicted at once
    Given pod "web" runs on "n1", ignoring shutdown
    When an operator taints "n1" with "maintenance=true:NoExecute"
    Then pod "web" is terminating
    And pod "web" has condition DisruptionTarget=True with reason "DeletionByTaintManager"
    And pod "web" has condition DisruptionTarget=True with message "Taint manager: deleting due to NoExecute taint"
    And pod "web" has a deletion grace period of 30 seconds, ending at 09:00:30
    When 30 seconds pass
    Then pod "web" is gone

  Scenario: tolerationSeconds delays the eviction, and the smallest one counts
    Given pod "web" runs on "n1", ignoring shutdown, with:
      """
      spec:
        tolerations:
        - {key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 90}
        - {key: maintenance, operator: Equal, value: "true", effect: NoExecute, tolerationSeconds: 60}
      """
    When 10 seconds pass
    And an operator taints "n1" with "maintenance=true:NoExecute"
    And 59 seconds pass
    Then pod "web" is not terminating
    And pod "web" is Running
    When 1 second passes
    Then pod "web" is terminating
    And pod "web" has condition DisruptionTarget=True with reason "DeletionByTaintManager"
    And pod "web" has a deletion grace period of 30 seconds, ending at 09:01:40

  Scenario: A toleration without tolerationSeconds keeps the pod
    Given pod "web" runs on "n1", with:
      """
      spec:
        tolerations:
        - {key: maintenance, operator: Exists, effect: NoExecute}
      """
    When an operator taints "n1" with "maintenance=true:NoExecute"
    And 10 minutes pass while "n1" keeps reporting
    Then pod "web" is not terminating
    And pod "web" is Running

  Scenario: A taint taken off before the time comes cancels the eviction
    Given pod "web" runs on "n1", with:
      """
      spec:
        tolerations:
        - {key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}
      """
    When an operator taints "n1" with "maintenance=true:NoExecute"
    And 30 seconds pass while "n1" keeps reporting
    And an operator removes the taint "maintenance" from "n1"
    And 5 minutes pass while "n1" keeps reporting
    Then pod "web" is not terminating
    And pod "web" is Running

  Scenario: A NoSchedule taint evicts nobody
    Given pod "web" runs on "n1"
    When an operator taints "n1" with "maintenance=true:NoSchedule"
    Then pod "web" is not terminating

  Scenario: Pods leave a node that stays unreachable, after Kubernetes' default 300 seconds
    Given node "n2" has registered and is Ready
    And node "n3" has registered and is Ready
    And pod "web" runs on "n1"
    When 45 seconds pass while "n2" and "n3" keep reporting
    Then node "n1" shows Ready Unknown since 09:00:45, last heartbeat 09:00:00
    And node "n1" has the taints:
      | key                            | effect     |
      | node.kubernetes.io/unreachable | NoSchedule |
      | node.kubernetes.io/unreachable | NoExecute  |
    When 299 seconds pass while "n2" and "n3" keep reporting
    Then pod "web" is not terminating
    When 1 second passes
    Then pod "web" is gone
    And the log of pod "web" shows, in order:
      | event                 | at       | reason                 |
      | PodCreated            | 09:00:00 |                        |
      | PodScheduled          | 09:00:00 |                        |
      | PodIPAssigned         | 09:00:00 |                        |
      | PodStatusUpdated      | 09:00:00 |                        |
      | PodMarkedNotReady     | 09:00:45 |                        |
      | PodDisruptionTargeted | 09:05:45 | DeletionByTaintManager |
      | PodDeletionRequested  | 09:05:45 |                        |
      | PodShutdownRequested  | 09:05:45 |                        |
      | PodStopped            | 09:05:45 |                        |
      | PodDeprovisioned      | 09:05:45 |                        |
      | PodFinalized          | 09:05:45 | Terminated             |

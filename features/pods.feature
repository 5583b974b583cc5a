@without-reconcilers
Feature: Pods through the Kubernetes API
  Clients create, list, bind, report on and delete pods in Kubernetes'
  shape, and operators cordon, taint and drain nodes, with the API alone:
  these scenarios run without herd's reconcilers, so what they show is what
  each request does by itself.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready
    And node "n2" has registered and is Ready

  Scenario: A new pod is Pending, with Kubernetes' defaults
    When a client creates pod "web"
    Then the request added exactly PodCreated to the log
    And pod "web" is Pending
    And pod "web" is not bound to any node
    And pod "web" tolerates:
      | key                            | operator | effect    | seconds |
      | node.kubernetes.io/not-ready   | Exists   | NoExecute | 300     |
      | node.kubernetes.io/unreachable | Exists   | NoExecute | 300     |

  Scenario: A pod that tolerates not-ready itself keeps its own toleration
    When a client creates pod "patient" with:
      """
      spec:
        tolerations:
        - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 3600}
      """
    Then pod "patient" tolerates:
      | key                            | operator | effect    | seconds |
      | node.kubernetes.io/not-ready   | Exists   | NoExecute | 3600    |
      | node.kubernetes.io/unreachable | Exists   | NoExecute | 300     |

  Scenario: Pods are listed by label, by node, by phase and across namespaces
    Given the namespace "batch" exists
    And a client creates pod "web"
    And a client creates pod "db"
    And a client creates pod "batch/report"
    And a client binds pod "web" to "n1"
    And a client reports pod "web" Running
    Then listing pods in "default" with label selector "app=web" shows exactly "web"
    And listing pods with field selector "spec.nodeName=n1" shows exactly "web"
    And listing pods with field selector "status.phase=Pending" shows exactly "batch/report" and "db"
    And listing pods across namespaces shows exactly "batch/report", "db" and "web"

  Scenario: A pod is bound once; binding it elsewhere is a conflict
    Given a client creates pod "web"
    When a client binds pod "web" to "n1"
    Then the request added exactly PodScheduled to the log
    And pod "web" is bound to "n1"
    And pod "web" has condition PodScheduled=True
    When a client binds pod "web" to "n2"
    Then the request fails with 409 Conflict
    And nothing was added to the log
    When a client binds pod "web" to "no-such-node"
    Then the request fails with 404 NotFound

  Scenario: Deleting a pod that was never scheduled removes it at once
    Given a client creates pod "web"
    When a client deletes pod "web"
    Then the request added exactly PodDeletionRequested, PodFinalized to the log
    And pod "web" is gone

  Scenario: Deleting a scheduled pod gives it its grace period, which a second delete may shorten but never lengthen
    Given a client creates pod "web"
    And a client binds pod "web" to "n1"
    When a client deletes pod "web"
    Then pod "web" is terminating
    And pod "web" has a deletion grace period of 30 seconds, ending at 09:00:30
    When a client deletes pod "web" with a grace period of 60 seconds
    Then nothing was added to the log
    When a client deletes pod "web" with a grace period of 5 seconds
    Then pod "web" has a deletion grace period of 5 seconds, ending at 09:00:05

  Scenario: A finished pod is deleted at once
    Given a client creates pod "job"
    And a client binds pod "job" to "n1"
    And a client reports pod "job" Succeeded
    When a client reports pod "job" Running
    Then the request fails with 422 Invalid
    And the error names the field "status.phase"
    When a client deletes pod "job"
    Then pod "job" is gone

  Scenario: An eviction marks the pod as a disruption target and deletes it gracefully
    Given a client creates pod "web"
    And a client binds pod "web" to "n1"
    When a client evicts pod "web"
    Then the request added exactly PodDisruptionTargeted, PodDeletionRequested to the log
    And pod "web" has condition DisruptionTarget=True with reason "EvictionByEvictionAPI"
    And pod "web" is terminating

  Scenario: Labels change through a patch
    Given a client creates pod "web"
    When a client labels pod "web" with "tier=front"
    Then the request added exactly PodMetadataChanged to the log
    And listing pods with label selector "tier=front" shows exactly "web"

  Scenario Outline: Bad pods are refused and nothing is recorded: <what>
    When a client creates pod "bad" with:
      """
      <pod>
      """
    Then the request fails with 422 Invalid
    And the error names the field "<field>"
    And nothing was added to the log

    Examples:
      | what                           | pod                                                                                          | field                                         |
      | no containers                  | {"spec": {"containers": []}}                                                                 | spec.containers                               |
      | a request above its limit      | {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]}} | spec.containers[0].resources.requests[cpu] |
      | seconds on a NoSchedule        | {"spec": {"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]}} | spec.tolerations[0].effect      |
      | Exists with a value            | {"spec": {"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}}                 | spec.tolerations[0].operator                  |
      | a negative grace period        | {"spec": {"terminationGracePeriodSeconds": -1}}                                              | spec.terminationGracePeriodSeconds            |

  Scenario: A field selector herd cannot serve is refused by name
    When a client asks for pods with field selector "spec.hostname=x"
    Then the answer is 400 BadRequest naming "spec.hostname"

  Scenario: Cordon and uncordon
    When an operator cordons "n1"
    Then the request added exactly NodeCordoned to the log
    And node "n1" is cordoned
    When an operator uncordons "n1"
    Then node "n1" is schedulable

  Scenario: Operators' taints come and go; a missing one is NotFound
    When an operator taints "n1" with "maintenance=true:NoSchedule"
    Then the request added exactly NodeTainted to the log
    And node "n1" has the taint "maintenance=true:NoSchedule"
    When an operator removes the taint "maintenance" from "n1"
    Then node "n1" has no taint "maintenance=true:NoSchedule"
    When an operator removes the taint "maintenance" from "n1"
    Then the request fails with 404 NotFound
    When an operator taints "n1" with "maintenance=true:Sometimes"
    Then the request fails with 422 Invalid
    And nothing was added to the log

  Scenario: Drain cordons the node and marks it Draining; undrain returns it
    When an operator drains "n1"
    Then the request added exactly NodeDrainStarted to the log
    And node "n1" is cordoned
    And node "n1" is in agent state Draining
    When an operator undrains "n1"
    Then node "n1" is schedulable
    And node "n1" is in agent state Ready

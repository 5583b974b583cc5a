Feature: Why a node is not as it should be
  herd records, with every event a reconciler appends in reaction to
  another, the event it reacted to (its causation id). So an operator can
  ask why a node is in trouble and get, for each thing wrong, the event
  that made it so and the events that caused that one, from the log.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready

  Scenario: Why a node is NotReady
    When 2 minutes pass
    Then herd explains node "n1": "Ready is Unknown: its last heartbeat was at 09:00:00", made so by HeartbeatMissed of "system:herd:health"
    And herd explains node "n1": "tainted node.kubernetes.io/unreachable:NoSchedule", made so by HeartbeatMissed of "system:herd:health"

  Scenario: Why a node was NotReady, asked once it is back
    When 2 minutes pass
    And 1 minute passes
    And the agent on "n1" reports the same metrics again
    Then herd finds nothing wrong with node "n1"
    And herd explains node "n1" as it was at 09:02:30: "Ready is Unknown: its last heartbeat was at 09:00:00", made so by HeartbeatMissed of "system:herd:health"
    And herd explains node "n1" as it was at 09:02:30: "tainted node.kubernetes.io/unreachable:NoSchedule", made so by HeartbeatMissed of "system:herd:health"
    And the timeline of "n1" as it was at 09:01:00 ends with BecameReady
    And the timeline of "n1" as it was at 09:02:30 ends with Tainted

  Scenario: Why a pod was evicted: the taint that evicted it is its cause
    Given pod "web" runs on "n1", ignoring shutdown
    When an operator taints "n1" with "maintenance=true:NoExecute"
    Then pod "web" is terminating
    And the event that evicted pod "web" names as its cause the NodeTainted event of "n1"
    And herd explains pod "web": "being deleted", made so by PodDeletionRequested of "system:herd:noexecute", because of NodeTainted
    And herd explains node "n1": "tainted maintenance:NoExecute", made so by NodeTainted of "system:anonymous"

  Scenario: Why a node is tainted names the condition that turned, not a later fleet event
    Given node "n2" has registered and is Ready
    When 45 seconds pass
    Then the log holds 1 "FleetDisruptionStarted" event
    When the agent on "n1" reports memory 95% used
    And the agent on "n2" reports healthy metrics
    Then the log holds 1 "FleetDisruptionEnded" event
    And herd explains node "n1": "tainted node.kubernetes.io/memory-pressure:NoSchedule", made so by NodeTainted of "system:herd:health", because MemoryPressure of node "n1" turned True

  Scenario: Why a node is tainted names each condition that turned, when several turn at once
    When the agent on "n1" reports memory 95% used and disk 97% used
    Then herd explains node "n1": "tainted node.kubernetes.io/memory-pressure:NoSchedule", made so by NodeTainted of "system:herd:health", because MemoryPressure of node "n1" turned True
    And herd explains node "n1": "tainted node.kubernetes.io/disk-pressure:NoSchedule", made so by NodeTainted of "system:herd:health", because DiskPressure of node "n1" turned True

  Scenario: Why a ReplicaSet's new pod is there: the eviction of the pod it replaces
    Given ReplicaSet "web" keeps 2 pods labelled app=web
    And ReplicaSet "web" has 2 pods Running
    When a client evicts a pod of ReplicaSet "web"
    Then the eviction is accepted
    And ReplicaSet "web" has 2 pods Running
    And the pod ReplicaSet "web" made in place of the evicted one names that pod's PodDeletionRequested as its cause

  Scenario: Why a Job's pod is there: the one before it succeeded
    Given Job "pi" runs "sleep 10" to 2 completions, 1 at a time
    Then Job "pi" has 1 pod Running
    When 10 seconds pass
    Then Job "pi" has 1 pod Succeeded and 1 Running
    And herd explains how Job "pi"'s Running pod came to be: "created", made so by PodCreated of "system:herd:job", because of JobPodsCounted, because of PodStatusUpdated
    And herd explains how Job "pi"'s Running pod came to be: "bound to n1", made so by PodScheduled of "system:herd:scheduler", because of PodCreated, because of JobPodsCounted

  Scenario: Why a Job's new pod is there: the eviction of the one it replaces
    Given Job "batch" runs "sleep 600" to 1 completions, 1 at a time
    Then Job "batch" has 1 pod Running
    When a client evicts the Running pod of Job "batch"
    Then the eviction is accepted
    When 40 seconds pass
    Then Job "batch" has 1 pod Running
    And herd explains how Job "batch"'s Running pod came to be: "created", made so by PodCreated of "system:herd:job", because of JobPodsCounted, because of PodDeletionRequested

  Scenario: Why a pod stays Terminating: the finalizer that holds it
    When the operator runs:
      """
      kubectl run held --image=busybox --overrides='{"metadata":{"finalizers":["example.com/hold"]}}'
      """
    And 5 seconds pass
    And the operator runs:
      """
      kubectl delete pod held --wait=false
      """
    And 60 seconds pass
    Then herd explains pod "held": "held by finalizers example.com/hold", made so by PodCreated of "system:anonymous"
    When the operator runs:
      """
      kubectl patch pod held --type=json -p='[{"op":"remove","path":"/metadata/finalizers"}]'
      """
    And 5 seconds pass
    Then pod "held" is gone

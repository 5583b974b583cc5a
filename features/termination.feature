Feature: Pods leave gracefully, and nothing stays Terminating for ever
  Deleting a pod gives it its grace period (30 seconds unless it says
  otherwise). herd asks the node's runtime to shut the pod down; a pod that
  stops in time is removed and leaves the fleet, one that does not is
  halted when the grace period runs out. Each step is in the pod's log.
  Here nodes without an agent of their own run their pods on herd's mock
  runtime; the annotation mock.herd.dev/shutdown-seconds says how long a
  pod takes to stop (-1: it ignores the request and must be halted).

  As Kubernetes' pod garbage collector does, herd removes a pod being
  deleted anyway when it was never scheduled, when its node is gone, or
  when its node stays unreachable for --pod-gc-timeout (60 seconds) past
  the pod's deadline. Finalizers still hold a pod until they are removed.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A pod that stops inside its grace period is removed when it stops
    Given node "n1" has registered and is Ready
    And pod "web" runs on "n1", taking 10 seconds to shut down
    When a client deletes pod "web"
    Then pod "web" is terminating
    And pod "web" has a deletion grace period of 30 seconds, ending at 09:00:30
    When 9 seconds pass
    Then pod "web" is terminating
    When 1 second passes
    Then pod "web" is gone
    And the runtime took pod "web" through, in order:
      | step        | at       |
      | Provision   | 09:00:00 |
      | Start       | 09:00:00 |
      | Shutdown    | 09:00:00 |
      | Stopped     | 09:00:10 |
      | Deprovision | 09:00:10 |
    And the log of pod "web" shows, in order:
      | event                | at       | reason     |
      | PodCreated           | 09:00:00 |            |
      | PodScheduled         | 09:00:00 |            |
      | PodIPAssigned        | 09:00:00 |            |
      | PodStatusUpdated     | 09:00:00 |            |
      | PodDeletionRequested | 09:00:00 |            |
      | PodShutdownRequested | 09:00:00 |            |
      | PodStopped           | 09:00:10 |            |
      | PodDeprovisioned     | 09:00:10 |            |
      | PodFinalized         | 09:00:10 | Terminated |

  Scenario: A pod that does not stop is halted when its grace period runs out
    Given node "n1" has registered and is Ready
    And pod "web" runs on "n1", ignoring shutdown
    When a client deletes pod "web"
    And 29 seconds pass
    Then pod "web" is terminating
    When 1 second passes
    Then pod "web" is gone
    And the runtime took pod "web" through, in order:
      | step        | at       |
      | Provision   | 09:00:00 |
      | Start       | 09:00:00 |
      | Shutdown    | 09:00:00 |
      | Halt        | 09:00:30 |
      | Stopped     | 09:00:30 |
      | Deprovision | 09:00:30 |
    And the log of pod "web" shows, in order:
      | event                | at       | reason     |
      | PodCreated           | 09:00:00 |            |
      | PodScheduled         | 09:00:00 |            |
      | PodIPAssigned        | 09:00:00 |            |
      | PodStatusUpdated     | 09:00:00 |            |
      | PodDeletionRequested | 09:00:00 |            |
      | PodShutdownRequested | 09:00:00 |            |
      | PodHalted            | 09:00:30 |            |
      | PodStopped           | 09:00:30 |            |
      | PodDeprovisioned     | 09:00:30 |            |
      | PodFinalized         | 09:00:30 | Terminated |

  Scenario: A second delete with a shorter grace period brings the halt forward
    Given node "n1" has registered and is Ready
    And pod "web" runs on "n1", ignoring shutdown
    When a client deletes pod "web"
    And 2 seconds pass
    And a client deletes pod "web" with a grace period of 5 seconds
    Then pod "web" has a deletion grace period of 5 seconds, ending at 09:00:07
    When 4 seconds pass
    Then pod "web" is terminating
    When 1 second passes
    Then pod "web" is gone
    And the runtime took pod "web" through, in order:
      | step        | at       |
      | Provision   | 09:00:00 |
      | Start       | 09:00:00 |
      | Shutdown    | 09:00:00 |
      | Halt        | 09:00:07 |
      | Stopped     | 09:00:07 |
      | Deprovision | 09:00:07 |

  Scenario: A pod that was never scheduled goes at once
    When a client creates pod "web" with:
      """
      spec:
        nodeSelector: {disk: none}
      """
    And a client deletes pod "web"
    Then pod "web" is gone
    And pod "web" was finalized with reason "NeverScheduled"
    And the runtime never saw pod "web"

  Scenario: A finalizer holds a pod that was never scheduled; once it is removed, pod GC takes the pod
    When a client creates pod "web" with:
      """
      metadata:
        finalizers: [example.com/keep]
      spec:
        nodeSelector: {disk: none}
      """
    And a client deletes pod "web"
    Then pod "web" is terminating
    When 10 minutes pass
    Then pod "web" is terminating
    When a client removes the finalizers of pod "web"
    Then pod "web" is gone
    And pod "web" was finalized with reason "DeletionByPodGC"

  @node-runtime-none
  Scenario: Pod GC removes a pod whose node stays unreachable past its deadline
    # With --node-runtime=none, every node's own agent runs its pods and
    # records their termination; this node's agent falls silent.
    Given node "a1" has registered and is Ready
    And a client creates pod "web" with:
      """
      spec:
        nodeName: a1
      """
    Then pod "web" is Pending
    And the runtime never saw pod "web"
    When a client deletes pod "web"
    And 45 seconds pass
    Then node "a1" shows Ready Unknown since 09:00:45, last heartbeat 09:00:00
    And pod "web" is terminating
    When 59 seconds pass
    Then pod "web" is terminating
    When 1 second passes
    Then pod "web" is gone
    And pod "web" was finalized with reason "DeletionByPodGC"

  Scenario: A pod whose node is deleted is removed at once
    Given node "n1" has registered and is Ready
    And pod "web" runs on "n1"
    When a client deletes the node "n1"
    Then pod "web" is gone
    And the log of pod "web" shows, in order:
      | event                 | at       | reason          |
      | PodCreated            | 09:00:00 |                 |
      | PodScheduled          | 09:00:00 |                 |
      | PodIPAssigned         | 09:00:00 |                 |
      | PodStatusUpdated      | 09:00:00 |                 |
      | PodDisruptionTargeted | 09:00:00 | DeletionByPodGC |
      | PodDeletionRequested  | 09:00:00 |                 |
      | PodFinalized          | 09:00:00 | DeletionByPodGC |

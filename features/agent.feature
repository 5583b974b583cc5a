Feature: herd's agent makes a host a node of the fleet
  `herd agent --server URL --node-name NAME` registers the host it runs on:
  its kind, its CPUs, memory and pods (110 unless --max-pods says
  otherwise), and what is allocatable after what the host keeps for
  itself (--reserve-cpu, --reserve-memory). It reports the host's metrics
  every 10 seconds, and herd derives the node's conditions from them. On
  a clean stop it says goodbye, so that herd knows at once and counts the
  next start as a clean start. It runs the pods herd places on its node
  itself, talking to herd over its API only and following its pods with
  a watch; herd's own runtime leaves them alone (label
  herd.dev/runtime=agent).

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: An agent registers its host, and the host's metrics become the node's conditions
    When the agent of "zone-01" starts on an illumos host with 8 CPUs and 32Gi of memory, keeping 1 CPU and 2Gi for itself
    Then node "zone-01" shows:
      | kind                    | illumos          |
      | label herd.dev/runtime  | agent            |
      | label kubernetes.io/os  | illumos          |
      | capacity cpu            | 8                |
      | capacity memory         | 32Gi             |
      | capacity pods           | 110              |
      | allocatable cpu         | 7                |
      | allocatable memory      | 30Gi             |
      | agent state             | Ready            |
      | last heartbeat          | 09:00:00         |
    And node "zone-01" has these conditions:
      | type           | status | reason                     |
      | Ready          | True   | AgentReady                 |
      | MemoryPressure | False  | HasSufficientMemory        |
    When the host of "zone-01" has 95% of its memory in use
    And 10 seconds pass
    Then the agent of "zone-01" has reported at 09:00:10
    And node "zone-01" has these conditions:
      | type           | status | reason                     |
      | Ready          | True   | AgentReady                 |
      | MemoryPressure | True   | HasInsufficientMemory      |
    And node "zone-01" has the taints:
      | key                              | effect     |
      | node.kubernetes.io/memory-pressure | NoSchedule |

  Scenario: An agent that stops cleanly says goodbye, and its next start is a clean start
    Given the agent of "zone-01" runs on a linux host with 4 CPUs and 8Gi of memory
    When the agent of "zone-01" stops
    Then node "zone-01" shows:
      | agent state   | Stopped |
      | restart count | 0       |
    And the Ready condition of "zone-01" says "herd agent stopped cleanly"
    When 5 seconds pass
    And the agent of "zone-01" starts again
    Then node "zone-01" shows:
      | kind                | linux       |
      | agent state         | Ready       |
      | restart count       | 1           |
      | last restart reason | clean start |
      | last heartbeat      | 09:00:05    |

  Scenario: An agent runs the pods herd places on its node at once, and takes them down when they are deleted
    The agent follows its pods with a watch on herd: no time passes in
    this scenario, so no poll of the agent's comes round, and each change
    reaches it all the same.
    Given the agent of "zone-01" runs on a linux host with 4 CPUs and 8Gi of memory
    When a client creates pod "web"
    Then pod "web" comes to run on "zone-01" with IP "10.88.0.2"
    And the runtime never saw pod "web"
    When a client deletes pod "web"
    Then pod "web" comes to be gone
    And the log of pod "web" shows, in order:
      | event                | at       | reason     |
      | PodCreated           | 09:00:00 |            |
      | PodScheduled         | 09:00:00 |            |
      | PodIPAssigned        | 09:00:00 |            |
      | PodStatusUpdated     | 09:00:00 |            |
      | PodDeletionRequested | 09:00:00 |            |
      | PodShutdownRequested | 09:00:00 |            |
      | PodStopped           | 09:00:00 |            |
      | PodDeprovisioned     | 09:00:00 |            |
      | PodFinalized         | 09:00:00 | Terminated |
    And the addresses in use are:
      | pool | address | pod |

  Scenario: An agent's pods are not ready while it is away, and Ready again once it is back
    herd marks the pods of a node that is not Ready not ready; the agent,
    back, finds its pods still running and reports them Ready.
    Given the agent of "zone-01" runs on a linux host with 4 CPUs and 8Gi of memory
    When a client creates pod "web"
    Then pod "web" comes to run on "zone-01" with IP "10.88.0.2"
    When the agent of "zone-01" stops
    Then pod "web" has condition Ready=False
    And pod "web" is Running
    When 5 seconds pass
    And the agent of "zone-01" starts again
    Then pod "web" comes to have condition Ready=True

@without-reconcilers
Feature: Bad input is refused, and nothing is recorded
  herd checks every request before any command runs. Bad input gets a 4xx
  answer in Kubernetes' Status form that names the offending field where
  there is one, and the log stays exactly as it was.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "web-01" has registered and is Ready

  Scenario Outline: An invalid value is named: <request>
    When <request>
    Then the request fails with 422 Invalid
    And the error names the field "<field>"
    And nothing was added to the log

    Examples:
      | request                                                                        | field                       |
      | an agent registers a node named "Web_01"                                       | metadata.name               |
      | a client creates a node named "Web_01" through the Kubernetes API              | metadata.name               |
      | an agent registers "web-02" as kind "toaster"                                  | metadata.labels[herd.dev/kind] |
      | a client creates the node "web-02" of kind "toaster" through the Kubernetes API | metadata.labels[herd.dev/kind] |
      | a client labels node "web-01" with "herd.dev/kind=illumos"                     | metadata.labels[herd.dev/kind] |
      | an agent registers "web-02" with capacity "cpu=-2"                             | status.capacity[cpu]        |
      | an agent registers "web-02" with capacity "memory=-1Gi"                        | status.capacity[memory]     |
      | an agent registers "web-02" with allocatable "pods=-1"                         | status.allocatable[pods]    |
      | the agent on "web-01" sends a heartbeat without pidsMax                        | metrics.pidsMax             |
      | the agent on "web-01" sends a heartbeat without memoryAvailableBytes           | metrics.memoryAvailableBytes |
      | the agent on "web-01" reports -1 bytes of memory available out of 16000000000  | metrics.memoryAvailableBytes |
      | the agent on "web-01" reports 16000000001 bytes of memory available out of 16000000000 | metrics.memoryAvailableBytes |
      | the agent on "web-01" reports 600 bytes of disk available out of 500           | metrics.diskAvailableBytes  |

  Scenario Outline: A request herd cannot take is refused: <request>
    When <request>
    Then the request fails with <code> <reason>
    And nothing was added to the log

    Examples:
      | request                                                            | code | reason                |
      | an agent registers "web-02" with a body that is not JSON           | 400  | BadRequest            |
      | the agent on "web-01" sends a heartbeat that is not JSON           | 400  | BadRequest            |
      | "web-01" patches its status as "application/json"                  | 415  | UnsupportedMediaType  |
      | "web-01" patches its status as "text/plain"                        | 415  | UnsupportedMediaType  |
      | an agent registers "web-02" with a Node of just over 1 MiB         | 413  | RequestEntityTooLarge |
      | a heartbeat arrives for the unknown node "ghost-9"                 | 404  | NotFound              |

  Scenario: A Node of exactly 1 MiB is still accepted
    When an agent registers "web-02" with a Node of exactly 1 MiB
    Then the request succeeds
    And the request added exactly NodeRegistered to the log

  Scenario Outline: What Kubernetes refuses, herd refuses, naming the field: <request>
    When <request>
    Then the request fails with 422 Invalid
    And the error names the field "<field>"
    And nothing was added to the log

    Examples:
      | request                                                                   | field                                         |
      | "web-01" reports capacity "pods=-1" in a status patch                     | status.capacity[pods]                         |
      | "web-01" reports allocatable "memory=-1Gi" in a status patch              | status.allocatable[memory]                    |
      | "web-01" reports its Ready condition as "Maybe"                           | status.conditions[0].status                   |
      | a client taints node "web-01" with effect "Sometimes" through the Kubernetes API | spec.taints[0].effect                  |
      | a client labels node "web-01" with "zone=rack 1"                          | metadata.labels                               |
      | a client labels node "web-01" with "-zone=a"                              | metadata.labels                               |
      | a client creates pod "web" with restart policy "Whenever"                 | spec.restartPolicy                            |
      | a client creates pod "web" with image pull policy "Sometimes"             | spec.containers[0].imagePullPolicy            |
      | a client creates pod "web" with memory request "-64Mi"                    | spec.containers[0].resources.requests[memory] |
      | a client creates pod "web" requesting 2 CPU with a limit of 1 CPU         | spec.containers[0].resources.requests[cpu]    |
      | a client creates pod "web" with toleration operator "Like"                | spec.tolerations[0].operator                  |
      | a client creates pod "web" with port protocol "ICMP"                      | spec.containers[0].ports[0].protocol          |
      | a client creates pod "web" with container port "70000"                    | spec.containers[0].ports[0].containerPort     |
      | a client creates pod "web" with label "app=web site"                      | metadata.labels                               |
      | a client creates pod "web" with annotation "bad key!=x"                   | metadata.annotations                          |

  Scenario: A Pod sent as a node is not a node
    When a client posts a Pod named "web-02" to the nodes of the Kubernetes API
    Then the request fails with 400 BadRequest
    And the error says Pod in version "v1" cannot be handled as a Node
    And nothing was added to the log

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

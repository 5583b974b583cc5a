Feature: What herd's agent tells of its host beyond load, memory, disk and processes
  Besides its host's load, memory, disk and processes, herd's agent
  reports how busy the host's CPUs were since its previous heartbeat,
  whether its network links are up, and the state of the services it
  was told to watch (herd agent --watch-service NAME, once per service:
  a systemd unit on Linux, an SMF service on illumos). From these herd
  derives three more conditions: CPUPressure, True while CPU use is above
  80% (herd serve --cpu-pressure-percent); NetworkUnavailable, True while
  no link other than loopback is up, naming the links that are down; and
  ServicesHealthy, False while a watched service does not run, naming it
  and its state. A service failing and a service running again are each
  recorded once, however many heartbeats report them, and shown in the
  node's timeline. An agent that reports none of these — an older one, or
  one that watches no service — gets none of these conditions.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A watched service fails and runs again
    When the agent of "web-01" runs on a linux host whose services "nginx" and "ssh" run, watching "nginx" and "ssh"
    Then node "web-01" has these conditions:
      | type            | status | reason          |
      | Ready           | True   | AgentReady      |
      | ServicesHealthy | True   | ServicesRunning |
    When service "nginx" on the host of "web-01" fails
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:10
    And node "web-01" has these conditions:
      | type            | status | reason         | since    |
      | Ready           | True   | AgentReady     | 09:00:00 |
      | ServicesHealthy | False  | ServicesFailed | 09:00:10 |
    And the ServicesHealthy condition of "web-01" says "1 of 2 watched services are not running: nginx.service is failed/failed"
    When 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:20
    And the log holds 1 "NodeServiceFailed" event
    When service "nginx" on the host of "web-01" runs again
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:30
    And node "web-01" has these conditions:
      | type            | status | reason          | since    |
      | ServicesHealthy | True   | ServicesRunning | 09:00:30 |
    And the log holds 1 "NodeServiceRecovered" event
    And the timeline of "web-01" shows, in order:
      | kind             | type    | reason           | at       |
      | ServiceFailed    | Warning | ServiceFailed    | 09:00:10 |
      | ServiceRecovered | Normal  | ServiceRecovered | 09:00:30 |

  Scenario: A watched service that does not exist is a failure that says so
    When the agent of "web-01" runs on a linux host whose services "ssh" run, watching "ssh" and "nosuch"
    Then node "web-01" has these conditions:
      | type            | status | reason         |
      | ServicesHealthy | False  | ServicesFailed |
    And the ServicesHealthy condition of "web-01" says "nosuch.service does not exist"
    And the timeline of "web-01" shows, in order:
      | kind          | type    |
      | ServiceFailed | Warning |

  Scenario: While systemd cannot be asked, the services are Unknown and the node stays Ready
    When the agent of "web-01" runs on a linux host whose services "nginx" run, watching "nginx"
    And systemd on the host of "web-01" cannot be reached
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:10
    And node "web-01" has these conditions:
      | type            | status  | reason          |
      | Ready           | True    | AgentReady      |
      | ServicesHealthy | Unknown | ServicesUnknown |
    And the ServicesHealthy condition of "web-01" says "cannot reach systemd over D-Bus"
    And herd explains node "web-01": "ServicesHealthy is Unknown", made so by NodeConditionChanged of "system:anonymous"
    When systemd on the host of "web-01" can be reached again
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:20
    And node "web-01" has these conditions:
      | type            | status | reason          |
      | ServicesHealthy | True   | ServicesRunning |
    And the log holds 0 "NodeServiceFailed" events

  Scenario: CPU use above 80% is CPUPressure
    When the agent of "web-01" runs on a linux host whose services "ssh" run, watching "ssh"
    And the host of "web-01" has 80% of its CPU in use
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:10
    And node "web-01" has these conditions:
      | type        | status | reason           |
      | CPUPressure | False  | HasSufficientCPU |
    When the host of "web-01" has 95% of its CPU in use
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:20
    And node "web-01" has these conditions:
      | type        | status | reason             | since    |
      | Ready       | True   | AgentReady         | 09:00:00 |
      | CPUPressure | True   | HasInsufficientCPU | 09:00:20 |
    And the CPUPressure condition of "web-01" says "CPU used above the 80% threshold"
    And the timeline of "web-01" shows, in order:
      | kind             | type    | reason             | at       |
      | ConditionChanged | Warning | HasInsufficientCPU | 09:00:20 |

  Scenario: No link up is NetworkUnavailable, naming the links that are down
    When the agent of "web-01" runs on a linux host whose services "ssh" run, watching "ssh"
    Then node "web-01" has these conditions:
      | type               | status | reason           |
      | NetworkUnavailable | False  | NetworkAvailable |
    When the links of the host of "web-01" are eth0 down and eth1 up
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:10
    And node "web-01" has these conditions:
      | type               | status | reason           |
      | NetworkUnavailable | False  | NetworkAvailable |
    When the links of the host of "web-01" are eth0 down and eth1 lowerlayerdown
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:20
    And node "web-01" has these conditions:
      | type               | status | reason     | since    |
      | Ready              | True   | AgentReady | 09:00:00 |
      | NetworkUnavailable | True   | NoLinkUp   | 09:00:20 |
    And the NetworkUnavailable condition of "web-01" says "no link is up: eth0 (down), eth1 (lowerlayerdown)"
    When the links of the host of "web-01" are eth0 up and eth1 lowerlayerdown
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:30
    And node "web-01" has these conditions:
      | type               | status | reason           | since    |
      | NetworkUnavailable | False  | NetworkAvailable | 09:00:30 |

  Scenario: An agent that reports none of these gets none of their conditions
    Given the linux node "web-02" registers through herd's agent
    When the agent on "web-02" reports healthy metrics
    Then node "web-02" has exactly these conditions:
      | type           | status |
      | Ready          | True   |
      | MemoryPressure | False  |
      | DiskPressure   | False  |
      | PIDPressure    | False  |
      | HighLoad       | False  |

  Scenario: A stopped agent's node does not show its last CPU and load readings as current
    When the agent of "web-01" runs on a linux host whose services "ssh" run, watching "ssh"
    And the host of "web-01" has 95% of its CPU in use
    And 10 seconds pass
    Then the agent of "web-01" has reported at 09:00:10
    And node "web-01" has these conditions:
      | type        | status | reason             |
      | CPUPressure | True   | HasInsufficientCPU |
    When the agent of "web-01" stops
    Then node "web-01" is in agent state Stopped
    And node "web-01" has these conditions:
      | type           | status  | reason       |
      | Ready          | False   | AgentStopped |
      | MemoryPressure | Unknown | AgentStopped |
      | HighLoad       | Unknown | AgentStopped |
      | CPUPressure    | Unknown | AgentStopped |
    And the CPUPressure condition of "web-01" says "herd agent stopped: no longer reported"

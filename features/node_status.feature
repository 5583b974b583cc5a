@without-reconcilers
Feature: Nodes that report their own conditions
  A kubelet, or a Pico that speaks a little of the Kubernetes node API,
  computes its conditions itself and sends them as a status patch. herd
  takes the statuses, reasons and messages, but never the node's clock: a
  Pico has no real-time clock and stamps everything 1970. Every time herd
  shows comes from herd's own clock.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: A Pico registers with conditions stamped 1970
    When "pico-07" posts its Node to the Kubernetes API:
      """
      {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
          "name": "pico-07",
          "labels": {"herd.dev/kind": "rp2040", "node.kubernetes.io/instance-type": "rp2040-pico"}
        },
        "status": {
          "capacity": {"cpu": "1", "memory": "256Ki", "pods": "0"},
          "nodeInfo": {"kubeletVersion": "v1.34.0", "osImage": "Pico SDK", "architecture": "arm", "operatingSystem": "linux"},
          "conditions": [
            {"type": "Ready", "status": "True", "reason": "PicoReady", "message": "firmware 0.4 running",
             "lastHeartbeatTime": "1970-01-01T00:00:07Z", "lastTransitionTime": "1970-01-01T00:00:01Z"}
          ]
        }
      }
      """
    Then node "pico-07" shows:
      | kind            | rp2040   |
      | agent state     | Ready    |
      | started at      | 09:00:00 |
      | last heartbeat  | 09:00:00 |
      | capacity memory | 256Ki    |
    And node "pico-07" has exactly these conditions:
      | type  | status | reason    | since    | last heartbeat |
      | Ready | True   | PicoReady | 09:00:00 | 09:00:00       |
    And no time herd shows for "pico-07" comes from the node's clock
    And the timeline of "pico-07" shows, in order:
      | kind             | reason    | at       |
      | Registered       | rp2040    | 09:00:00 |
      | ConditionChanged | PicoReady | 09:00:00 |
      | BecameReady      | Ready     | 09:00:00 |

  Scenario Outline: A status patch stamped 1970 is taken at herd's time (<content type>)
    Given the rp2040 node "pico-07" is created through the Kubernetes API
    When 30 seconds pass
    And "pico-07" patches its status as "<content type>" with:
      """
      {"status": {"conditions": [
        {"type": "Ready", "status": "True", "reason": "PicoReady", "message": "firmware 0.4 running",
         "lastHeartbeatTime": "1970-01-01T00:00:37Z", "lastTransitionTime": "1970-01-01T00:00:01Z"},
        {"type": "MemoryPressure", "status": "False", "reason": "PicoHasSufficientMemory",
         "lastHeartbeatTime": "1970-01-01T00:00:37Z", "lastTransitionTime": "1970-01-01T00:00:01Z"}
      ]}}
      """
    Then node "pico-07" has exactly these conditions:
      | type           | status | reason                  | since    | last heartbeat |
      | Ready          | True   | PicoReady               | 09:00:30 | 09:00:30       |
      | MemoryPressure | False  | PicoHasSufficientMemory | 09:00:30 | 09:00:30       |
    And node "pico-07" shows:
      | agent state    | Ready    |
      | last heartbeat | 09:00:30 |
    When 30 seconds pass
    And "pico-07" patches its status as "<content type>" with:
      """
      {"status": {"conditions": [
        {"type": "Ready", "status": "True", "reason": "PicoReady", "message": "firmware 0.4 running",
         "lastHeartbeatTime": "1970-01-01T00:01:07Z", "lastTransitionTime": "1970-01-01T00:00:01Z"},
        {"type": "MemoryPressure", "status": "True", "reason": "PicoLowOnMemory", "message": "heap 97% used",
         "lastHeartbeatTime": "1970-01-01T00:01:07Z", "lastTransitionTime": "1970-01-01T00:00:01Z"}
      ]}}
      """
    Then node "pico-07" has exactly these conditions:
      | type           | status | reason          | since    | last heartbeat |
      | Ready          | True   | PicoReady       | 09:00:30 | 09:01:00       |
      | MemoryPressure | True   | PicoLowOnMemory | 09:01:00 | 09:01:00       |
    And the request added exactly HeartbeatRecorded and NodeConditionChanged to the log
    And no time herd shows for "pico-07" comes from the node's clock
    And the log records these MemoryPressure changes for "pico-07":
      | from  | to    | at       |
      | none  | False | 09:00:30 |
      | False | True  | 09:01:00 |

    Examples:
      | content type                           |
      | application/merge-patch+json           |
      | application/strategic-merge-patch+json |

  Scenario: A kubelet's patch names only some conditions; the others stay as they were
    Given the kubelet node "k8s-worker-3" is created through the Kubernetes API
    And "k8s-worker-3" patches its status as "application/strategic-merge-patch+json" with:
      """
      {"status": {"conditions": [
        {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
         "lastHeartbeatTime": "2025-06-30T23:59:59Z", "lastTransitionTime": "2025-06-01T00:00:00Z"},
        {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure",
         "lastHeartbeatTime": "2025-06-30T23:59:59Z", "lastTransitionTime": "2025-06-01T00:00:00Z"}
      ]}}
      """
    When 40 seconds pass
    And "k8s-worker-3" patches its status as "application/strategic-merge-patch+json" with:
      """
      {"status": {"conditions": [
        {"type": "DiskPressure", "status": "True", "reason": "KubeletHasDiskPressure",
         "lastHeartbeatTime": "2025-06-30T23:59:59Z", "lastTransitionTime": "2025-06-30T23:59:59Z"}
      ]}}
      """
    Then node "k8s-worker-3" has exactly these conditions:
      | type         | status | reason                 | since    | last heartbeat |
      | Ready        | True   | KubeletReady           | 09:00:00 | 09:00:40       |
      | DiskPressure | True   | KubeletHasDiskPressure | 09:00:40 | 09:00:40       |
    And no time herd shows for "k8s-worker-3" comes from the node's clock

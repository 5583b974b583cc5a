Feature: A node speaks only for itself
  A node's token may register and report for its own node only, and may
  not give itself a role: as kube-apiserver's Node authorizer and
  NodeRestriction decide. herd reads the name and the labels of what a
  node sends exactly as it stores them, so a body cannot name one node
  to the check and another to the log. Every user may ask herd what it
  may do and who it is.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And herd requires bearer tokens from a token file:
      | token        | user                | uid | groups            |
      | admin-secret | alice               | 1   | herd:admins       |
      | pico-01-key  | system:node:pico-01 | 3   | system:nodes      |
      | scrape-key   | prometheus          | 5   | system:monitoring |

  Scenario: A node cannot register another node by naming itself in a second key
    Given the requests come from "system:node:pico-01"
    When "pico-01" registers a Node named "victim" whose body also names "pico-01" in a key that differs only in case
    Then the request fails with 403 Forbidden
    And nothing was added to the log
    And asking for node "victim" finds nothing

  Scenario: A node cannot give itself a role
    Given the requests come from "system:node:pico-01"
    When "pico-01" registers itself with the label "node-role.kubernetes.io/control-plane"
    Then the request fails with 403 Forbidden
    And the error says "is not allowed to set the following labels: node-role.kubernetes.io/control-plane"
    And nothing was added to the log
    When "pico-01" registers itself with the label "topology.kubernetes.io/zone"
    Then the request succeeds with 201

  Scenario: A node asks what it may do, and who it is
    Given the requests come from "system:node:pico-01"
    When the operator runs:
      """
      kubectl auth can-i get nodes/pico-01
      """
    Then kubectl prints "yes"
    When the operator runs:
      """
      kubectl auth whoami
      """
    Then kubectl prints "system:node:pico-01"

  Scenario: The fleet's metrics are for those who may read the fleet
    Given the requests come from "system:node:pico-01"
    When a client reads /metrics
    Then the request fails with 403 Forbidden
    Given the requests come from "prometheus"
    When a client reads /metrics
    Then the request succeeds with 200

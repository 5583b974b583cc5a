Feature: The fleet as it was, and what changed since
  herd keeps every event, so an operator can see the fleet as it stood at
  any moment the log holds — last night, not only the last few minutes a
  watch can resume from — and what changed between two moments.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready
    And node "n2" has registered and is Ready

  Scenario: The fleet as it was last night
    Given 10 minutes pass
    When an operator cordons "n1"
    And a client deletes the node "n2"
    And 1 hour passes
    Then the nodes as they were at 09:05:00 are "n1, n2", none cordoned
    And the nodes as they are now are "n1", "n1" cordoned

  Scenario: What changed since a moment
    Given 10 minutes pass
    When an operator cordons "n1"
    And a client deletes the node "n2"
    And 1 hour passes
    Then what changed since 09:05:00 is "n1" cordoned and "n2" gone
    And nothing changed since 09:30:00

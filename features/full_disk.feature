@sqlite
Feature: A full disk
  When the disk under herd's log fills up, every write is refused with an
  error that says so, nothing acknowledged is lost, and /readyz says herd
  is not ready and why, so that a load balancer sends writers elsewhere.
  herd keeps answering reads, does not spin or flood its log, and comes
  back by itself once there is room again: nobody has to restart it.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: Writes stop while the disk is full and resume by themselves
    Given a client creates the ConfigMap "before" with data "interval=10"
    When the disk under the log fills up
    And a client creates the ConfigMap "during" of 256 KiB
    Then the request fails with 500 InternalError
    And the error says "database or disk is full"
    And nothing was added to the log
    And herd is not ready, saying "database or disk is full"
    And the ConfigMap "before" holds:
      | interval | 10 |
    When room is freed on the disk
    Then herd is soon ready again
    When a client creates the ConfigMap "after" of 256 KiB
    Then the request succeeds with 201

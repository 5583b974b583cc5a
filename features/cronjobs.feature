Feature: CronJobs make Jobs on schedule
  A CronJob makes a Job from its template at each time of its schedule,
  by herd's clock, as in Kubernetes: the Job is named after the minute it
  was scheduled for and belongs to the CronJob. With the Forbid policy no
  run starts while an earlier one is still running (a run made by hand
  from the CronJob does not count, as in Kubernetes); a suspended CronJob
  starts none; and of the Jobs that have finished, only the newest few
  are kept.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready

  Scenario: A CronJob every 5 minutes makes a Job at each time
    Given CronJob "tick" runs "true" every 5 minutes
    When 4 minutes pass while "n1" keeps reporting
    Then CronJob "tick" has made no Jobs
    When 1 minute passes while "n1" keeps reporting
    Then CronJob "tick" has made Jobs for 09:05
    When 5 minutes pass while "n1" keeps reporting
    Then CronJob "tick" has made Jobs for 09:05 and 09:10
    And CronJob "tick" last ran at 09:10
    When the operator runs:
      """
      kubectl describe cronjob tick
      """
    Then kubectl prints "Created job tick-"
    And kubectl prints "Saw completed job: tick-"
    And kubectl prints ", condition: Complete"

  Scenario: With Forbid, no run starts while one is still running
    Given CronJob "report" runs "sleep 600" every 5 minutes, one at a time
    When 5 minutes pass while "n1" keeps reporting
    Then CronJob "report" has made Jobs for 09:05
    When 5 minutes pass while "n1" keeps reporting
    Then CronJob "report" has made Jobs for 09:05
    And CronJob "report" has 1 active Job

  Scenario: A run made by hand does not hold back a one-at-a-time CronJob
    Given CronJob "report" runs "sleep 600" every 5 minutes, one at a time
    When 1 minute passes while "n1" keeps reporting
    And the operator runs:
      """
      kubectl create job by-hand --from=cronjob/report
      """
    And 4 minutes pass while "n1" keeps reporting
    Then CronJob "report" last ran at 09:05
    And CronJob "report" has 1 active Job
    When the operator runs:
      """
      kubectl describe cronjob report
      """
    Then kubectl prints "Saw a job that the controller did not create or forgot: by-hand"

  Scenario: A suspended CronJob starts no more runs
    Given CronJob "tick" runs "true" every 5 minutes
    When 5 minutes pass while "n1" keeps reporting
    And CronJob "tick" is suspended
    And 10 minutes pass while "n1" keeps reporting
    Then CronJob "tick" has made Jobs for 09:05

  Scenario: Only the newest 3 successful Jobs are kept
    Given CronJob "tick" runs "true" every 5 minutes
    When 31 minutes pass while "n1" keeps reporting
    Then CronJob "tick" has made Jobs for 09:20, 09:25 and 09:30
    When the operator runs:
      """
      kubectl describe cronjob tick
      """
    Then kubectl prints "Deleted job tick-"

Feature: Jobs run pods to completion
  A Job runs pods made from its template until enough of them have
  succeeded, a few at a time; it gives up when more of its pods fail than
  its backoff limit allows or when it runs past its deadline, and a
  finished Job that asks for it is deleted with its pods a while later,
  as in Kubernetes. A Job holds each of its pods with a finalizer until
  it has counted it, so a pod evicted or deleted from under it still
  counts, however fast it goes. An Indexed Job runs one pod for each
  index from 0, the index in the pod's name, annotation and label, and
  succeeds when each index has a pod that succeeded. A pod failure
  policy decides what a failed pod means: a failure that fails the Job at
  once, or one not counted at all. herd's mock
  runtime runs a pod whose command is "sleep N", "true" or "exit N" to
  its end.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready

  Scenario: A Job runs its pods two at a time until three have succeeded
    Given Job "pi" runs "sleep 10" to 3 completions, 2 at a time
    Then Job "pi" has 2 pods Running
    When 10 seconds pass
    Then Job "pi" has 2 pods Succeeded and 1 Running
    When 10 seconds pass
    Then Job "pi" is Complete with 3 pods succeeded

  Scenario: An Indexed Job runs one pod for each index, and finishes when every index has succeeded
    Given Job "shards" runs "sleep 10" for each index up to 3, 2 at a time
    Then the Running pods of Job "shards" are those of indexes 0 and 1
    When 10 seconds pass
    Then the Succeeded pods of Job "shards" are those of indexes 0 and 1
    And the Running pods of Job "shards" are those of indexes 2
    And Job "shards" has completed indexes "0-1"
    When 10 seconds pass
    Then Job "shards" is Complete with 3 pods succeeded
    And Job "shards" has completed indexes "0-2"

  Scenario: A Job whose pods fail gives up after its backoff limit
    Given Job "doomed" runs "exit 1" with a backoff limit of 1
    Then Job "doomed" has 1 pod Failed
    When 10 seconds pass
    Then Job "doomed" is Failed because BackoffLimitExceeded, with 2 pods failed

  Scenario: A Job counts a pod evicted from under it as a failure
    Given Job "fragile" runs "sleep 600" with a backoff limit of 0
    Then Job "fragile" has 1 pod Running
    And the pods of Job "fragile" carry the finalizer "batch.kubernetes.io/job-tracking"
    When a client evicts the Running pod of Job "fragile"
    Then the eviction is accepted
    When 40 seconds pass
    Then Job "fragile" is Failed because BackoffLimitExceeded, with 1 pod failed
    And Job "fragile" has no pods

  Scenario: A Job that runs past its deadline is stopped
    Given Job "slow" runs "sleep 600" with a deadline of 30 seconds
    Then Job "slow" has 1 pod Running
    When 30 seconds pass
    Then Job "slow" is Failed because DeadlineExceeded, with 1 pod failed
    And Job "slow" has no pods

  Scenario: A finished Job is deleted with its pods after its TTL
    Given Job "once" runs "true", deleted 60 seconds after it finishes
    Then Job "once" is Complete with 1 pod succeeded
    When 60 seconds pass
    Then Job "once" is gone, and so are its pods

  Scenario: A Job's pod failure policy fails it at once on an exit code that retrying will not fix
    Given Job "strict" runs "exit 42" with a backoff limit of 6, failing at once on exit code 42
    Then Job "strict" is Failed because PodFailurePolicy, with 1 pod failed
    And Job "strict" says its pod failed with exit code 42, matching its rule at index 0
    And Job "strict" has 1 pod Failed

  Scenario: A Job's pod failure policy does not count a pod evicted from under it
    Given Job "tolerant" runs "sleep 600" with a backoff limit of 0, not counting disruptions
    Then Job "tolerant" has 1 pod Running
    When a client evicts the Running pod of Job "tolerant"
    Then the eviction is accepted
    When 40 seconds pass
    Then Job "tolerant" has 1 pod Running
    And Job "tolerant" has counted no failures, and is neither Complete nor Failed

  Scenario: An Indexed Job's success policy ends it once its leader has succeeded
    Given Job "leader" runs "sleep 10" for each index up to 4, 2 at a time, done once index 0 is
    Then the Running pods of Job "leader" are those of indexes 0 and 1
    When 10 seconds pass
    Then Job "leader" is Complete because SuccessPolicy, with 2 pods succeeded
    And Job "leader" has completed indexes "0-1"

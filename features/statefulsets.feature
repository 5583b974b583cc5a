Feature: StatefulSets keep pods with stable names, and their templates as revisions
  A StatefulSet keeps its pods NAME-0 to NAME-(n-1), as Kubernetes'
  StatefulSet controller does: they start in order, each once the ones
  before it are Ready; a scale down removes the highest ordinal first; a
  new template rolls from the highest ordinal down to the partition, with
  as many pods unavailable at a time as its maxUnavailable allows (one
  unless it says more), and a pod below the partition that is lost comes
  back as it was. Each template
  is a revision an operator can go back to, as kubectl rollout undo does;
  one deleted by hand is made again at once, not at the next resync. A
  StatefulSet created again after one deleted orphaning its pods takes
  them back.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And node "n1" has registered and is Ready

  Scenario: Pods start in order, and a scale down removes the highest first
    When StatefulSet "web" keeps 3 pods of "nginx:1"
    Then StatefulSet "web" has these pods Running:
      | pod   | image   |
      | web-0 | nginx:1 |
      | web-1 | nginx:1 |
      | web-2 | nginx:1 |
    And StatefulSet "web" made its pods in the order "web-0, web-1, web-2"
    When StatefulSet "web" is scaled to 1
    Then StatefulSet "web" has these pods Running:
      | pod   | image   |
      | web-0 | nginx:1 |
    And StatefulSet "web" removed its pods in the order "web-2, web-1"
    When the operator runs:
      """
      kubectl describe statefulset web
      """
    Then kubectl prints "create Pod web-0 in StatefulSet web successful"
    And kubectl prints "delete Pod web-2 in StatefulSet web successful"

  Scenario: A rolling update held at a partition, a pod lost below it, and an undo
    Given StatefulSet "web" keeps 3 pods of "nginx:1"
    When StatefulSet "web" is given the image "nginx:2" from ordinal 1 up
    Then StatefulSet "web" has these pods Running:
      | pod   | image   |
      | web-0 | nginx:1 |
      | web-1 | nginx:2 |
      | web-2 | nginx:2 |
    And StatefulSet "web" has revisions "1, 2"
    When pod "web-0" of StatefulSet "web" is lost
    Then StatefulSet "web" has these pods Running:
      | pod   | image   |
      | web-0 | nginx:1 |
      | web-1 | nginx:2 |
      | web-2 | nginx:2 |
    When an operator undoes the last rollout of StatefulSet "web"
    Then StatefulSet "web" has these pods Running:
      | pod   | image   |
      | web-0 | nginx:1 |
      | web-1 | nginx:1 |
      | web-2 | nginx:1 |
    And StatefulSet "web" has revisions "2, 3"

  Scenario: A rolling update replaces two pods at a time
    Given StatefulSet "web" keeps 4 pods of "nginx:1" started in parallel
    When StatefulSet "web" is given the image "nginx:2" with 2 of its pods unavailable at a time
    Then StatefulSet "web" has these pods Running:
      | pod   | image   |
      | web-0 | nginx:2 |
      | web-1 | nginx:2 |
      | web-2 | nginx:2 |
      | web-3 | nginx:2 |
    And StatefulSet "web" removed its pods in the order "web-3, web-2, web-1, web-0"
    And the rollout of StatefulSet "web" had at most 2 of its pods unavailable at a time, and 2 at times

  Scenario: A revision deleted by hand comes back at once
    Given StatefulSet "web" keeps 2 pods of "nginx:1"
    And StatefulSet "web" has revisions "1"
    When an operator deletes the newest revision of StatefulSet "web"
    Then StatefulSet "web" has revisions "1"
    And StatefulSet "web" has these pods Running:
      | pod   | image   |
      | web-0 | nginx:1 |
      | web-1 | nginx:1 |

  Scenario: Deleted orphaning its pods and created again, a StatefulSet takes them back
    Operators delete a StatefulSet with --cascade=orphan and create it
    again to change what an update may not. Its pods run on throughout,
    and the new StatefulSet adopts them and its revision, as in
    Kubernetes, rather than wait for names that are taken.

    Given StatefulSet "web" keeps 2 pods of "nginx:1"
    When the operator runs:
      """
      kubectl delete statefulset web --cascade=orphan
      """
    And StatefulSet "web" keeps 2 pods of "nginx:1"
    Then StatefulSet "web" has these pods Running:
      | pod   | image   |
      | web-0 | nginx:1 |
      | web-1 | nginx:1 |
    And StatefulSet "web" has revisions "1"
    And the log holds 2 "PodCreated" events

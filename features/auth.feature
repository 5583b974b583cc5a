Feature: Who may write
  Without a token file herd serves loopback only, and everyone there is
  an admin. With a token file (kube-apiserver's format) every request
  needs a bearer token, and the groups say what it may do: herd:admins
  everything, herd:viewers read, and a node's token (system:node:NAME in
  system:nodes) only its own node and the ConfigMaps granted to it.
  herd reads the token file again when it changes, within a few seconds,
  and on SIGHUP; a file that no longer parses keeps the tokens it had.
  Boards that cannot authenticate at all use the device listener: node
  registration, status and granted ConfigMaps only, for allowed names,
  from allowed networks, each name bound to the first address it came
  from.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And herd requires bearer tokens from a token file:
      | token        | user                | uid | groups       |
      | admin-secret | alice               | 1   | herd:admins  |
      | viewer-pass  | bob                 | 2   | herd:viewers |
      | pico-01-key  | system:node:pico-01 | 3   | system:nodes |
      | pico-02-key  | system:node:pico-02 | 4   | system:nodes |

  Scenario: A request without a valid token is refused with 401
    Given the requests carry no token
    When a client creates the ConfigMap "pico-config" with data "interval=10"
    Then the request fails with 401 Unauthorized
    And nothing was added to the log
    Given the requests carry the token "guess"
    When a client creates the ConfigMap "pico-config" with data "interval=10"
    Then the request fails with 401 Unauthorized
    And nothing was added to the log

  Scenario: A node token cannot patch another node
    Given the requests come from "system:node:pico-02"
    And the rp2040 node "pico-02" is created through the Kubernetes API
    When the requests come from "system:node:pico-01"
    And "pico-02" patches its status as "application/strategic-merge-patch+json"
    Then the request fails with 403 Forbidden
    And nothing was added to the log

  Scenario: A viewer reads but writes nothing
    Given the requests come from "bob"
    When a client creates the ConfigMap "pico-config" with data "interval=10"
    Then the request fails with 403 Forbidden
    And nothing was added to the log

  Scenario: A changed token file takes effect without a restart
    When the token file is changed to:
      | token        | user  | uid | groups       |
      | admin-secret | alice | 1   | herd:admins  |
      | carol-secret | carol | 5   | herd:viewers |
    Then herd refuses the token "carol-secret"
    When 5 seconds pass
    Then herd accepts the token "carol-secret"
    And herd refuses the token "viewer-pass"

  Scenario: The audit log names the user who made each change
    Given the requests come from "alice"
    When the operator runs:
      """
      kubectl create configmap pico-config --from-literal=interval=10
      """
    And the operator runs:
      """
      kubectl annotate configmap pico-config herd.dev/readable-by-nodes=pico-*
      """
    Then the log records these changes to the ConfigMap "pico-config":
      | type                     | actor | changed                                         |
      | ConfigMapCreated         | alice |                                                 |
      | ConfigMapMetadataChanged | alice | metadata.annotations.herd.dev/readable-by-nodes |
    When the requests come from "bob"
    And the operator runs:
      """
      kubectl delete configmap pico-config
      """
    Then kubectl fails saying "Forbidden"

  Scenario: The device listener refuses a name outside its allow-list
    Given herd listens for devices named "pico-*" from 127.0.0.3/32, 127.0.0.4/32
    When the Pico "sensor-01" at 127.0.0.3 is switched on
    Then the request fails with 403 Forbidden
    And asking for node "sensor-01" finds nothing

  Scenario: The device listener binds a name to its first address until an admin releases it
    Given herd listens for devices named "pico-*" from 127.0.0.3/32, 127.0.0.4/32
    And the Pico "pico-01" at 127.0.0.3 was switched on
    And its registration was accepted
    And "pico-01" is bound to 127.0.0.3
    When a Pico at 127.0.0.4 claiming to be "pico-01" is switched on
    Then the request fails with 403 Forbidden
    And nothing was added to the log
    When herd restarts
    And "pico-01" reports its status
    Then the request succeeds with 200
    When a Pico at 127.0.0.4 claiming to be "pico-01" is switched on
    Then the request fails with 403 Forbidden
    When an admin releases the device "pico-01"
    Then "pico-01" is bound to no address
    When a Pico at 127.0.0.4 claiming to be "pico-01" is switched on
    Then its registration was refused with 409 and its status report was accepted
    And "pico-01" is bound to 127.0.0.4

  Scenario: A Pico on the device listener reads only the configuration granted to it
    Given herd listens for devices named "pico-*" from 127.0.0.3/32
    And the Pico "pico-01" at 127.0.0.3 was switched on
    And a client creates the ConfigMap "pico-config" with data "interval=10"
    When "pico-01" polls its configuration
    Then the request fails with 403 Forbidden
    When the operator runs:
      """
      kubectl annotate configmap pico-config herd.dev/readable-by-nodes=pico-*
      """
    And "pico-01" polls its configuration
    Then "pico-01" reads the configuration:
      | interval | 10 |

Feature: ConfigMaps, kept as events like everything else
  Operators keep configuration for their nodes in ConfigMaps, with kubectl
  as they would in Kubernetes. Every create, update, patch and delete is an
  event in herd's log: the audit log says who changed what, a stale write
  is refused instead of overwriting someone else's change, and the views
  can be rebuilt from the log.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: kubectl creates, shows, patches, replaces and deletes a ConfigMap
    When the operator runs:
      """
      kubectl create configmap pico-config --from-literal=interval=10 --from-literal=led=on
      """
    Then kubectl prints "configmap/pico-config created"
    When the operator runs:
      """
      kubectl get configmaps
      """
    Then kubectl prints "pico-config"
    When the operator runs:
      """
      kubectl get configmap pico-config -o yaml
      """
    Then kubectl prints "interval: "10""
    When the operator runs:
      """
      kubectl patch configmap pico-config --type merge -p '{"data":{"led":null,"mode":"blink"}}'
      """
    Then kubectl prints "configmap/pico-config patched"
    And the ConfigMap "pico-config" holds:
      | interval | 10    |
      | mode     | blink |
    When the operator runs:
      """
      kubectl patch configmap pico-config --type json -p '[{"op":"replace","path":"/data/interval","value":"5"}]'
      """
    Then the ConfigMap "pico-config" holds:
      | interval | 5     |
      | mode     | blink |
    When the operator runs:
      """
      kubectl label configmap pico-config app=pico
      """
    Then kubectl prints "configmap/pico-config labeled"
    When the operator runs:
      """
      kubectl delete configmap pico-config
      """
    Then kubectl prints "configmap "pico-config" deleted"
    And there is no ConfigMap "pico-config"
    And the log records these changes to the ConfigMap "pico-config":
      | type                     | actor            | changed             |
      | ConfigMapCreated         | system:anonymous |                     |
      | ConfigMapUpdated         | system:anonymous | data.led, data.mode |
      | ConfigMapUpdated         | system:anonymous | data.interval       |
      | ConfigMapMetadataChanged | system:anonymous | metadata.labels.app |
      | ConfigMapDeleted         | system:anonymous |                     |
    And rebuilding the views from the log gives exactly the live views

  Scenario: A write based on a stale version is refused, and nothing is recorded
    Given a client creates the ConfigMap "pico-config" with data "interval=10"
    And a client reads the ConfigMap "pico-config"
    And a client replaces "pico-config" with data "interval=5" based on what it read
    When a client replaces "pico-config" with data "interval=1" based on what it read
    Then the request fails with 409 Conflict
    And nothing was added to the log
    And the ConfigMap "pico-config" holds:
      | interval | 5 |

  Scenario: A ConfigMap with a bad key is refused, and the key is named
    When a client creates the ConfigMap "pico-config" with data "bad key=1"
    Then the request fails with 422 Invalid
    And the error names the field "data[bad key]"
    And nothing was added to the log

  Scenario: kubectl cannot create a ConfigMap twice
    Given a client creates the ConfigMap "pico-config" with data "interval=10"
    When the operator runs:
      """
      kubectl create configmap pico-config --from-literal=interval=1
      """
    Then kubectl fails saying "configmaps "pico-config" already exists"
    And nothing was added to the log

  Scenario: kubectl's server-side dry runs show the outcome and change nothing
    Given a client creates the ConfigMap "pico-config" with data "interval=10"
    When the operator runs:
      """
      kubectl create configmap other-config --from-literal=interval=1 --dry-run=server -o yaml
      """
    Then kubectl prints "name: other-config"
    And nothing was added to the log
    And there is no ConfigMap "other-config"
    When the operator runs:
      """
      kubectl patch configmap pico-config -p '{"data":{"interval":"99"}}' --dry-run=server -o yaml
      """
    Then kubectl prints "interval: "99""
    When the operator runs:
      """
      kubectl delete configmap pico-config --dry-run=server
      """
    Then nothing was added to the log
    And the ConfigMap "pico-config" holds:
      | interval | 10 |
    When the operator runs:
      """
      kubectl create configmap pico-config --from-literal=interval=1 --dry-run=server
      """
    Then kubectl fails saying "configmaps "pico-config" already exists"

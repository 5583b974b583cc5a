Feature: Namespaces scope pods and ConfigMaps, and deleting one empties it
  As in Kubernetes, every pod, ConfigMap and lease lives in a namespace
  that exists. default, kube-system, kube-public and kube-node-lease always
  exist; an operator creates the others (kubectl create namespace). A pod
  or ConfigMap asked for in a namespace that does not exist is refused
  with 404, and in a namespace being deleted with 403. Deleting a
  namespace turns it Terminating at once; herd deletes its workloads
  (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs),
  disruption budgets, pods (each with its grace period) and ConfigMaps,
  and once it is empty the namespace goes. Pods a kubelet runs are what runs, not requests: herd
  creates their namespace if it does not know it.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00

  Scenario: Deleting a namespace deletes what it holds, then the namespace
    Given the namespace "shop" exists
    And node "n1" has registered and is Ready
    And pod "shop/web" runs on "n1", taking 10 seconds to shut down
    And the ConfigMap "settings" exists in namespace "shop"
    When a client deletes the namespace "shop"
    Then the request succeeds
    And the namespace "shop" is Terminating
    And pod "shop/web" is terminating
    And namespace "shop" holds no ConfigMaps
    When a client asks for pod "shop/late"
    Then the request fails with 403 Forbidden
    And the error says "unable to create new content in namespace shop because it is being terminated"
    And nothing was added to the log
    When 10 seconds pass
    Then pod "shop/web" is gone
    And the namespace "shop" is gone

  Scenario: Deleting a namespace deletes its workloads, which make no more pods in it
    Given the namespace "shop" exists
    And node "n1" has registered and is Ready
    When the operator runs:
      """
      kubectl create deployment web --image=nginx --replicas=2 -n shop
      """
    And the operator runs:
      """
      kubectl create job batch --image=busybox -n shop -- sh -c "sleep 600"
      """
    And 10 seconds pass
    And a client deletes the namespace "shop"
    Then the request succeeds
    When 60 seconds pass
    Then the namespace "shop" is gone
    And namespace "shop" holds no Deployments
    And namespace "shop" holds no ReplicaSets
    And namespace "shop" holds no Jobs
    And namespace "shop" holds no pods

  Scenario: A pod or ConfigMap in a namespace that does not exist is refused
    When a client asks for pod "nowhere/web"
    Then the request fails with 404 NotFound
    And the error says "namespaces "nowhere" not found"
    And nothing was added to the log
    When a client asks for the ConfigMap "settings" in namespace "nowhere"
    Then the request fails with 404 NotFound
    And nothing was added to the log

  Scenario: The system namespaces cannot be deleted
    When a client deletes the namespace "kube-system"
    Then the request fails with 403 Forbidden
    And nothing was added to the log
    And the namespace "kube-system" is Active

  Scenario: A kubelet's pods bring their namespace
    Given a kubelet "worker-a" that herd polls
    When the kubelet on "worker-a" runs pod "lab/probe"
    And 30 seconds pass
    Then pod "lab/probe" is Running
    And the namespace "lab" is Active

  Scenario: kubectl creates, lists and deletes namespaces
    When the operator runs:
      """
      kubectl create namespace lab
      """
    Then kubectl prints "namespace/lab created"
    When the operator runs:
      """
      kubectl get namespaces
      """
    Then kubectl prints "lab"
    When the operator runs:
      """
      kubectl delete namespace lab
      """
    Then kubectl prints "namespace "lab" deleted"

  Scenario: An operator labels a namespace
    When the operator runs:
      """
      kubectl create namespace lab
      """
    And the operator runs:
      """
      kubectl label namespace lab team=web
      """
    Then kubectl prints "namespace/lab labeled"
    When the operator runs:
      """
      kubectl get namespaces -l team=web
      """
    Then kubectl prints "lab"

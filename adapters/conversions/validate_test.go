package conversions

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

func validNode() *corev1.Node {
	return &corev1.Node{
		TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-01", Labels: map[string]string{"topology.kubernetes.io/zone": "rack-1"}},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{
			Capacity:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
		},
	}
}

func validPod() *corev1.Pod {
	grace := int64(30)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Annotations: map[string]string{"team": "shop"}},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
			TerminationGracePeriodSeconds: &grace,
			NodeSelector:                  map[string]string{"herd.dev/kind": "illumos"},
			Tolerations:                   []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{
				Name: "web", Image: "nginx", ImagePullPolicy: corev1.PullIfNotPresent,
				Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
				},
			}},
		},
	}
}

// TestValidateRefusesWhatKubernetesRefuses: each bad field gets a field
// error on Kubernetes' path that says what is wrong; a good object passes.
func TestValidateRefusesWhatKubernetesRefuses(t *testing.T) {
	if err := ValidateNode(validNode()); err != nil {
		t.Fatalf("a valid node is refused: %v", err)
	}
	if err := ValidatePod(validPod()); err != nil {
		t.Fatalf("a valid pod is refused: %v", err)
	}
	for _, tc := range []struct {
		name  string
		check func() error
		field string
		says  string
	}{
		{"negative pods capacity", func() error {
			n := validNode()
			n.Status.Capacity[corev1.ResourcePods] = resource.MustParse("-1")
			return ValidateNode(n)
		}, "status.capacity[pods]", "must be greater than or equal to 0"},
		{"negative allocatable memory", func() error {
			n := validNode()
			n.Status.Allocatable = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1Gi")}
			return ValidateNode(n)
		}, "status.allocatable[memory]", "must be greater than or equal to 0"},
		{"taint effect", func() error {
			n := validNode()
			n.Spec.Taints[0].Effect = "Sometimes"
			return ValidateNode(n)
		}, "spec.taints[0].effect", `Unsupported value: "Sometimes"`},
		{"taint without effect", func() error {
			n := validNode()
			n.Spec.Taints[0].Effect = ""
			return ValidateNode(n)
		}, "spec.taints[0].effect", "Required value"},
		{"taint key", func() error {
			n := validNode()
			n.Spec.Taints[0].Key = "not a key"
			return ValidateNode(n)
		}, "spec.taints[0].key", "name part must consist of alphanumeric characters"},
		{"condition status", func() error {
			n := validNode()
			n.Status.Conditions[0].Status = "Maybe"
			return ValidateNode(n)
		}, "status.conditions[0].status", `supported values: "False", "True", "Unknown"`},
		{"address type", func() error {
			n := validNode()
			n.Status.Addresses[0].Type = ""
			return ValidateNode(n)
		}, "status.addresses[0].type", "Required value"},
		{"duplicate address", func() error {
			n := validNode()
			n.Status.Addresses = append(n.Status.Addresses, n.Status.Addresses[0])
			return ValidateNode(n)
		}, "status.addresses[1]", "Duplicate value"},
		{"label value", func() error {
			n := validNode()
			n.Labels["zone"] = "rack 1"
			return ValidateNode(n)
		}, "metadata.labels", "a valid label must be an empty string or consist of alphanumeric characters"},
		{"label key", func() error {
			n := validNode()
			n.Labels["-zone"] = "a"
			return ValidateNode(n)
		}, "metadata.labels", "name part must consist of alphanumeric characters"},
		{"annotation key", func() error {
			p := validPod()
			p.Annotations["bad key!"] = "x"
			return ValidatePod(p)
		}, "metadata.annotations", "name part must consist of alphanumeric characters"},
		{"deletion cost", func() error {
			p := validPod()
			p.Annotations[domain.PodDeletionCostAnnotation] = "+5"
			return ValidatePod(p)
		}, "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]", "must be a 32bit integer"},
		{"restart policy", func() error {
			p := validPod()
			p.Spec.RestartPolicy = "Whenever"
			return ValidatePod(p)
		}, "spec.restartPolicy", `Unsupported value: "Whenever": supported values: "Always", "Never", "OnFailure"`},
		{"image pull policy", func() error {
			p := validPod()
			p.Spec.Containers[0].ImagePullPolicy = "Sometimes"
			return ValidatePod(p)
		}, "spec.containers[0].imagePullPolicy", `Unsupported value: "Sometimes"`},
		{"DNS policy", func() error {
			p := validPod()
			p.Spec.DNSPolicy = "Google"
			return ValidatePod(p)
		}, "spec.dnsPolicy", `Unsupported value: "Google"`},
		{"protocol", func() error {
			p := validPod()
			p.Spec.Containers[0].Ports[0].Protocol = "ICMP"
			return ValidatePod(p)
		}, "spec.containers[0].ports[0].protocol", `Unsupported value: "ICMP"`},
		{"port", func() error {
			p := validPod()
			p.Spec.Containers[0].Ports[0].ContainerPort = 70000
			return ValidatePod(p)
		}, "spec.containers[0].ports[0].containerPort", "must be between 1 and 65535"},
		{"an environment variable without a name", func() error {
			p := validPod()
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Value: "x"}}
			return ValidatePod(p)
		}, "spec.containers[0].env[0].name", "Required value"},
		{"an environment variable's name", func() error {
			p := validPod()
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "1=MODE", Value: "x"}}
			return ValidatePod(p)
		}, "spec.containers[0].env[0].name", "a valid environment variable name"},
		{"an environment variable's value and source", func() error {
			p := validPod()
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "MODE", Value: "x",
				ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
			return ValidatePod(p)
		}, "spec.containers[0].env[0].valueFrom", "may not be specified when `value` is not empty"},
		{"a volume twice", func() error {
			p := validPod()
			p.Spec.Volumes = []corev1.Volume{{Name: "cache"}, {Name: "cache"}}
			return ValidatePod(p)
		}, "spec.volumes[1].name", "Duplicate value"},
		{"a mount of no volume", func() error {
			p := validPod()
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}}
			return ValidatePod(p)
		}, "spec.initContainers[0].volumeMounts[0].name", `Not found: "data"`},
		{"a mount without a path", func() error {
			p := validPod()
			p.Spec.Volumes = []corev1.Volume{{Name: "cache"}}
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cache"}}
			return ValidatePod(p)
		}, "spec.containers[0].volumeMounts[0].mountPath", "Required value"},
		{"negative request", func() error {
			p := validPod()
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("-1")
			return ValidatePod(p)
		}, "spec.containers[0].resources.requests[memory]", "must be greater than or equal to 0"},
		{"request above limit", func() error {
			p := validPod()
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
			return ValidatePod(p)
		}, "spec.containers[0].resources.requests[cpu]", "must be less than or equal to cpu limit of 500m"},
		{"container name", func() error {
			p := validPod()
			p.Spec.Containers[0].Name = "Web_1"
			return ValidatePod(p)
		}, "spec.containers[0].name", "a lowercase RFC 1123 label"},
		{"toleration operator", func() error {
			p := validPod()
			p.Spec.Tolerations[0].Operator = "Like"
			return ValidatePod(p)
		}, "spec.tolerations[0].operator", `Unsupported value: "Like"`},
		{"toleration effect", func() error {
			p := validPod()
			p.Spec.Tolerations[0].Effect = "NoWay"
			return ValidatePod(p)
		}, "spec.tolerations[0].effect", `Unsupported value: "NoWay"`},
		{"negative grace period", func() error {
			p := validPod()
			g := int64(-5)
			p.Spec.TerminationGracePeriodSeconds = &g
			return ValidatePod(p)
		}, "spec.terminationGracePeriodSeconds", "must be greater than or equal to 0"},
		{"node selector value", func() error {
			p := validPod()
			p.Spec.NodeSelector["disk"] = "s s d"
			return ValidatePod(p)
		}, "spec.nodeSelector", "a valid label must be"},
		{"pod phase", func() error {
			return ValidatePodStatus(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Status: corev1.PodStatus{Phase: "Sleeping"}})
		}, "status.phase", `Unsupported value: "Sleeping"`},
		{"node posted as a Pod", func() error {
			n := validNode()
			n.Kind = "Pod"
			return ValidateNode(n)
		}, "kind", "must be Node"},
		{"node status of a Pod", func() error {
			n := validNode()
			n.Kind = "Pod"
			return ValidateNodeStatus(n)
		}, "kind", "must be Node"},
		{"node status capacity", func() error {
			n := validNode()
			n.Status.Capacity[corev1.ResourcePods] = resource.MustParse("-1")
			return ValidateNodeStatus(n)
		}, "status.capacity[pods]", "must be greater than or equal to 0"},
		{"node update taint", func() error {
			n := validNode()
			n.Spec.Taints[0].Effect = "Sometimes"
			return ValidateNodeUpdate(n)
		}, "spec.taints[0].effect", `Unsupported value: "Sometimes"`},
		{"pod update label", func() error {
			p := validPod()
			p.Labels = map[string]string{"app": "web site"}
			return ValidatePodUpdate(p)
		}, "metadata.labels", "a valid label must be"},
		{"pod status of a Node", func() error {
			p := validPod()
			p.Kind = "Node"
			return ValidatePodStatus(p)
		}, "kind", "must be Pod"},
		{"kind", func() error {
			return invalidFrom("Node", "web-01", validateTypeMeta(metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}, "Node", "v1"))
		}, "kind", "must be Node"},
		{"apiVersion", func() error {
			return invalidFrom("Node", "web-01", validateTypeMeta(metav1.TypeMeta{Kind: "Node", APIVersion: "apps/v1"}, "Node", "v1"))
		}, "apiVersion", "must be v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check()
			var inv *domain.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("error %v, want an InvalidError", err)
			}
			for _, f := range inv.Fields {
				if strings.HasPrefix(f.Field, tc.field) && strings.Contains(f.Reason, tc.says) {
					return
				}
			}
			t.Errorf("fields %+v, want one on %s saying %q", inv.Fields, tc.field, tc.says)
		})
	}
}

// TestUpdatesLeaveTheStatusAlone: a PUT or PATCH of the object itself
// does not write its status, so a status herd would refuse from a client
// does not stop a change of labels or spec; and the status subresource
// does not look at the spec.
func TestUpdatesLeaveTheStatusAlone(t *testing.T) {
	n := validNode()
	n.Status.Capacity[corev1.ResourcePods] = resource.MustParse("-1")
	if err := ValidateNodeUpdate(n); err != nil {
		t.Errorf("a node update is refused for its status: %v", err)
	}
	n = validNode()
	n.Spec.Taints[0].Effect = "Sometimes"
	if err := ValidateNodeStatus(n); err != nil {
		t.Errorf("a node status is refused for its spec: %v", err)
	}
	p := validPod()
	p.Status.Phase = "Sleeping"
	if err := ValidatePodUpdate(p); err != nil {
		t.Errorf("a pod update is refused for its status: %v", err)
	}
	p = validPod()
	p.Spec.RestartPolicy = "Whenever"
	if err := ValidatePodStatus(p); err != nil {
		t.Errorf("a pod status is refused for its spec: %v", err)
	}
}

// TestValidateIsNoStricterThanKubernetes: what kube-apiserver takes,
// herd takes too: a node address type is any string (a provider may have
// its own), an empty enum is the default.
func TestValidateIsNoStricterThanKubernetes(t *testing.T) {
	n := validNode()
	n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: "CloudPrivateIP", Address: "10.0.0.1"})
	if err := ValidateNode(n); err != nil {
		t.Errorf("a node with an address of its provider's type is refused: %v", err)
	}
	p := validPod()
	p.Spec.RestartPolicy, p.Spec.DNSPolicy, p.Spec.Containers[0].ImagePullPolicy, p.Spec.Containers[0].Ports[0].Protocol = "", "", "", ""
	if err := ValidatePod(p); err != nil {
		t.Errorf("a pod that leaves its policies to the defaults is refused: %v", err)
	}
	p = validPod()
	p.Spec.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}}
	p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "MODE", Value: "fast"}, {Name: "my.setting-2"},
		{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	if err := ValidatePod(p); err != nil {
		t.Errorf("a pod with an environment and a mounted volume is refused: %v", err)
	}
}

// TestValidateListsEveryProblem: a client fixes everything in one go.
func TestValidateListsEveryProblem(t *testing.T) {
	p := validPod()
	p.Spec.RestartPolicy = "Whenever"
	p.Spec.Containers[0].ImagePullPolicy = "Sometimes"
	var inv *domain.InvalidError
	if err := ValidatePod(p); !errors.As(err, &inv) || len(inv.Fields) != 2 {
		t.Fatalf("error %v, want both problems", err)
	}
	if !strings.Contains(inv.Error(), `Pod "web" is invalid`) {
		t.Errorf("message %q does not name the pod", inv.Error())
	}
}

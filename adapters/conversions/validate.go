package conversions

import (
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/domain"
)

// The checks below refuse what kube-apiserver refuses in the fields herd
// reads, with Kubernetes' own field paths and, through apimachinery's
// validation helpers, its own rules for label and annotation keys and
// values. They run before a command is built, so a refused object appends
// nothing. What herd does not read of an object (most of a pod's spec) is
// checked where kube-apiserver's refusal is plain (an enum, a negative
// quantity), so that a client learns of its mistake from herd as it would
// from Kubernetes instead of having the field silently dropped.

// Supported values of the enums herd checks, as kube-apiserver lists them.
var (
	restartPolicies = []string{string(corev1.RestartPolicyAlways), string(corev1.RestartPolicyNever), string(corev1.RestartPolicyOnFailure)}
	pullPolicies    = []string{string(corev1.PullAlways), string(corev1.PullIfNotPresent), string(corev1.PullNever)}
	dnsPolicies     = []string{string(corev1.DNSClusterFirst), string(corev1.DNSClusterFirstWithHostNet), string(corev1.DNSDefault), string(corev1.DNSNone)}
	protocols       = []string{string(corev1.ProtocolSCTP), string(corev1.ProtocolTCP), string(corev1.ProtocolUDP)}
	taintEffects    = []string{string(corev1.TaintEffectNoExecute), string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule)}
	tolerationOps   = []string{string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists)}
	conditionStates = []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
	podPhases       = []string{string(corev1.PodFailed), string(corev1.PodPending), string(corev1.PodRunning), string(corev1.PodSucceeded), string(corev1.PodUnknown)}
)

func validateTypeMeta(tm metav1.TypeMeta, kind, apiVersion string) field.ErrorList {
	var errs field.ErrorList
	if tm.Kind != "" && tm.Kind != kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), tm.Kind, "must be "+kind))
	}
	if tm.APIVersion != "" && tm.APIVersion != apiVersion {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), tm.APIVersion, "must be "+apiVersion))
	}
	return errs
}

// ValidateNode checks a Node a client creates, status included: its kind
// and apiVersion when set, labels and annotations, taints, capacity,
// conditions, addresses and kubelet port.
func ValidateNode(in *corev1.Node) error {
	errs := validateNodeMetaAndSpec(in)
	errs = append(errs, validateNodeStatus(&in.Status, statusPath)...)
	return invalidFrom("Node", in.Name, errs)
}

// ValidateNodeUpdate checks a Node a client replaces or patches: as
// ValidateNode without the status, which an update of the node itself
// does not write (kube-apiserver keeps the stored one, and so does herd).
func ValidateNodeUpdate(in *corev1.Node) error {
	return invalidFrom("Node", in.Name, validateNodeMetaAndSpec(in))
}

// ValidateNodeStatus checks the status a node reports through
// nodes/NAME/status, and the kind and apiVersion of the body when set.
func ValidateNodeStatus(in *corev1.Node) error {
	errs := validateTypeMeta(in.TypeMeta, "Node", "v1")
	errs = append(errs, validateNodeStatus(&in.Status, statusPath)...)
	return invalidFrom("Node", in.Name, errs)
}

func validateNodeMetaAndSpec(in *corev1.Node) field.ErrorList {
	errs := validateTypeMeta(in.TypeMeta, "Node", "v1")
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	return append(errs, validateTaints(in.Spec.Taints, field.NewPath("spec", "taints"))...)
}

// ValidatePod checks a Pod a client creates: its kind and apiVersion when
// set, metadata, spec and status.
func ValidatePod(in *corev1.Pod) error {
	errs := validatePodMetaAndSpec(in)
	errs = append(errs, validatePodStatus(&in.Status, field.NewPath("status"))...)
	return invalidFrom("Pod", in.Name, errs)
}

// ValidatePodUpdate checks a Pod a client replaces or patches: as
// ValidatePod without the status, which an update of the pod itself does
// not write.
func ValidatePodUpdate(in *corev1.Pod) error {
	return invalidFrom("Pod", in.Name, validatePodMetaAndSpec(in))
}

// ValidatePodStatus checks the status a client writes through
// pods/NAME/status, and the kind and apiVersion of the body when set.
func ValidatePodStatus(in *corev1.Pod) error {
	errs := validateTypeMeta(in.TypeMeta, "Pod", "v1")
	errs = append(errs, validatePodStatus(&in.Status, field.NewPath("status"))...)
	return invalidFrom("Pod", in.Name, errs)
}

func validatePodMetaAndSpec(in *corev1.Pod) field.ErrorList {
	errs := validateTypeMeta(in.TypeMeta, "Pod", "v1")
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	if _, err := domain.PodDeletionCost(in.Annotations); err != nil {
		errs = append(errs, field.Invalid(annotationsPath.Key(domain.PodDeletionCostAnnotation), in.Annotations[domain.PodDeletionCostAnnotation], "must be a 32bit integer"))
	}
	return append(errs, validatePodSpec(&in.Spec, field.NewPath("spec"))...)
}

// The paths of an object's labels and annotations, built once: a path is
// never changed once built, only extended into new ones.
var (
	labelsPath      = field.NewPath("metadata", "labels")
	annotationsPath = field.NewPath("metadata", "annotations")
)

func validateMeta(m *metav1.ObjectMeta) field.ErrorList {
	errs := metav1validation.ValidateLabels(m.Labels, labelsPath)
	return append(errs, apivalidation.ValidateAnnotations(m.Annotations, annotationsPath)...)
}

// statusPath is the path of an object's status; the paths below it are
// built only into an error, so that a status with nothing wrong, what
// every node registering sends, is checked without building any.
var statusPath = field.NewPath("status")

func validateNodeStatus(s *corev1.NodeStatus, path *field.Path) field.ErrorList {
	errs := validateQuantities(s.Capacity, path, "capacity")
	errs = append(errs, validateQuantities(s.Allocatable, path, "allocatable")...)
	errs = append(errs, validateNodeConditions(s.Conditions, path, "conditions")...)
	// Kubernetes takes an address of any type (a provider may have its
	// own) but not the same address twice.
	seen := make(map[corev1.NodeAddress]bool, len(s.Addresses))
	for i, a := range s.Addresses {
		at := func() *field.Path { return path.Child("addresses").Index(i) }
		if a.Type == "" {
			errs = append(errs, field.Required(at().Child("type"), ""))
		}
		if a.Address == "" {
			errs = append(errs, field.Required(at().Child("address"), ""))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(at(), a))
		}
		seen[a] = true
	}
	if port := s.DaemonEndpoints.KubeletEndpoint.Port; port != 0 {
		for _, msg := range validation.IsValidPortNum(int(port)) {
			errs = append(errs, field.Invalid(path.Child("daemonEndpoints", "kubeletEndpoint", "Port"), port, msg))
		}
	}
	return errs
}

func validateTaints(ts []corev1.Taint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		p := path.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, msg))
		}
		errs = append(errs, enum(p.Child("effect"), string(t.Effect), taintEffects, false)...)
	}
	return errs
}

func validatePodSpec(s *corev1.PodSpec, path *field.Path) field.ErrorList {
	errs := enum(path.Child("restartPolicy"), string(s.RestartPolicy), restartPolicies, true)
	errs = append(errs, enum(path.Child("dnsPolicy"), string(s.DNSPolicy), dnsPolicies, true)...)
	if g := s.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(path.Child("terminationGracePeriodSeconds"), *g, "must be greater than or equal to 0"))
	}
	errs = append(errs, metav1validation.ValidateLabels(s.NodeSelector, path.Child("nodeSelector"))...)
	for i, t := range s.Tolerations {
		p := path.Child("tolerations").Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		}
		errs = append(errs, enum(p.Child("operator"), string(t.Operator), tolerationOps, true)...)
		errs = append(errs, enum(p.Child("effect"), string(t.Effect), taintEffects, true)...)
		if t.Operator == corev1.TolerationOpExists && t.Value != "" {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator, "value must be empty when `operator` is 'Exists'"))
		}
	}
	volumes := map[string]bool{}
	for i, v := range s.Volumes {
		p := path.Child("volumes").Index(i).Child("name")
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(p, ""))
		case volumes[v.Name]:
			errs = append(errs, field.Duplicate(p, v.Name))
		default:
			for _, msg := range validation.IsDNS1123Label(v.Name) {
				errs = append(errs, field.Invalid(p, v.Name, msg))
			}
		}
		volumes[v.Name] = true
	}
	for _, group := range []struct {
		name string
		list []corev1.Container
	}{{"initContainers", s.InitContainers}, {"containers", s.Containers}} {
		for i := range group.list {
			errs = append(errs, validateContainer(&group.list[i], volumes, path.Child(group.name).Index(i))...)
		}
	}
	return errs
}

// validateContainer checks a container as kube-apiserver does, its
// environment's names and its mounts of the pod's volumes among it,
// though herd keeps those without acting on them.
func validateContainer(c *corev1.Container, volumes map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range c.Env {
		p := path.Child("env").Index(i)
		if e.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range validation.IsEnvVarName(e.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), e.Name, msg))
			}
		}
		if e.Value != "" && e.ValueFrom != nil {
			errs = append(errs, field.Invalid(p.Child("valueFrom"), "", "may not be specified when `value` is not empty"))
		}
	}
	for i, m := range c.VolumeMounts {
		p := path.Child("volumeMounts").Index(i)
		switch {
		case m.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case !volumes[m.Name]:
			errs = append(errs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		}
	}
	if c.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), c.Name, msg))
		}
	}
	errs = append(errs, enum(path.Child("imagePullPolicy"), string(c.ImagePullPolicy), pullPolicies, true)...)
	for j, p := range c.Ports {
		pp := path.Child("ports").Index(j)
		for _, msg := range validation.IsValidPortNum(int(p.ContainerPort)) {
			errs = append(errs, field.Invalid(pp.Child("containerPort"), p.ContainerPort, msg))
		}
		if p.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(p.HostPort)) {
				errs = append(errs, field.Invalid(pp.Child("hostPort"), p.HostPort, msg))
			}
		}
		errs = append(errs, enum(pp.Child("protocol"), string(p.Protocol), protocols, true)...)
	}
	res := path.Child("resources")
	errs = append(errs, validateQuantities(c.Resources.Requests, res, "requests")...)
	errs = append(errs, validateQuantities(c.Resources.Limits, res, "limits")...)
	for name, req := range c.Resources.Requests {
		if lim, ok := c.Resources.Limits[name]; ok && req.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(res.Child("requests").Key(string(name)), req.String(),
				fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		}
	}
	return errs
}

func validatePodStatus(s *corev1.PodStatus, path *field.Path) field.ErrorList {
	errs := enum(path.Child("phase"), string(s.Phase), podPhases, true)
	for i, c := range s.Conditions {
		p := path.Child("conditions").Index(i)
		if c.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), ""))
		}
		errs = append(errs, enum(p.Child("status"), string(c.Status), conditionStates, false)...)
	}
	return errs
}

// validateQuantities refuses negative quantities, as kube-apiserver does
// for every resource list.
func validateQuantities(l corev1.ResourceList, parent *field.Path, child string) field.ErrorList {
	negative := false
	for _, q := range l {
		negative = negative || q.Sign() < 0
	}
	if !negative {
		return nil
	}
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(l)) {
		q := l[name]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(parent.Child(child).Key(string(name)), q.String(), "must be greater than or equal to 0"))
		}
	}
	return errs
}

// enum refuses v unless it is one of supported; empty is allowed when
// optional (herd, like Kubernetes, fills in the default).
func enum(path *field.Path, v string, supported []string, optional bool) field.ErrorList {
	if v == "" && optional || slices.Contains(supported, v) {
		return nil
	}
	if v == "" {
		return field.ErrorList{field.Required(path, fmt.Sprintf("supported values: %q", supported))}
	}
	return field.ErrorList{field.NotSupported(path, v, supported)}
}

// invalidFrom turns apimachinery's field errors into herd's InvalidError,
// which the API serves as a 422 Status with a cause per field; nil when
// there are none.
func invalidFrom(kind, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	out := &domain.InvalidError{Kind: kind, Name: name}
	for _, e := range errs {
		out.Fields = append(out.Fields, domain.FieldError{Field: e.Field, Reason: e.ErrorBody()})
	}
	return out
}

// ValidateReplicaSet checks a ReplicaSet a client creates or replaces:
// its kind and apiVersion when set, its metadata, and its template's as
// a pod's are checked, whose restart policy can only be Always (a
// ReplicaSet keeps its pods running). Its selector and replicas are the
// domain's to check.
func ValidateReplicaSet(in *appsv1.ReplicaSet) error {
	errs := validateTypeMeta(in.TypeMeta, "ReplicaSet", appsv1.SchemeGroupVersion.String())
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	errs = append(errs, validateWorkloadTemplate(&in.Spec.Template)...)
	return invalidFrom("ReplicaSet", in.Name, errs)
}

// validateWorkloadTemplate checks the pod template of a workload that
// keeps its pods running: as a pod's spec, with Always the only restart
// policy.
func validateWorkloadTemplate(t *corev1.PodTemplateSpec) field.ErrorList {
	tmpl := field.NewPath("spec", "template")
	errs := validatePodSpec(&t.Spec, tmpl.Child("spec"))
	if p := t.Spec.RestartPolicy; p != "" && p != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tmpl.Child("spec", "restartPolicy"), p, []string{string(corev1.RestartPolicyAlways)}))
	}
	return errs
}

// validateNodeConditions checks a node's reported conditions, within the
// domain's bounds on what one report may carry (how many, how long), so
// that an oversized report is refused before it is decoded any further.
func validateNodeConditions(cs []corev1.NodeCondition, parent *field.Path, child string) field.ErrorList {
	if len(cs) > domain.MaxReportedConditions {
		return field.ErrorList{field.TooMany(parent.Child(child), len(cs), domain.MaxReportedConditions)}
	}
	var errs field.ErrorList
	total := 0
	for i, c := range cs {
		at := func(f string) *field.Path { return parent.Child(child).Index(i).Child(f) }
		switch {
		case c.Type == "":
			errs = append(errs, field.Required(at("type"), ""))
		case len(c.Type) > domain.MaxConditionTypeLength:
			errs = append(errs, field.TooLong(at("type"), "", domain.MaxConditionTypeLength))
		}
		if !slices.Contains(conditionStates, string(c.Status)) {
			errs = append(errs, enum(at("status"), string(c.Status), conditionStates, false)...)
		}
		if len(c.Reason) > domain.MaxConditionReasonLength {
			errs = append(errs, field.TooLong(at("reason"), "", domain.MaxConditionReasonLength))
		}
		if len(c.Message) > domain.MaxConditionMessageLength {
			errs = append(errs, field.TooLong(at("message"), "", domain.MaxConditionMessageLength))
		}
		total += len(c.Type) + len(c.Reason) + len(c.Message)
	}
	if total > domain.MaxConditionsBytes {
		errs = append(errs, field.TooLong(parent.Child(child), "", domain.MaxConditionsBytes))
	}
	return errs
}

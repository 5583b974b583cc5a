package conversions

import (
	"encoding/json"
	"maps"
)

// The fields of a pod spec and of a container, by their JSON names, that
// herd acts on and keeps as fields of its own (domain.PodSpec,
// domain.Container); the scheduler's name is herd's to say. A
// container's resources are its own but for their claims.
var (
	modeledPodSpec = []string{"nodeName", "nodeSelector", "restartPolicy", "tolerations", "containers",
		"terminationGracePeriodSeconds", "schedulerName"}
	modeledContainer = []string{"name", "image", "command", "args"}
)

// unmodeled is what v (a corev1.PodSpec or corev1.Container) says besides
// the fields modeled, as a JSON object with its keys sorted, so that the
// same spec is always the same bytes; nil when it says nothing else. A
// container's requests and limits are modeled; what else its resources
// say is not.
func unmodeled(v any, modeled []string) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil // the API's own types always encode
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil
	}
	for _, k := range modeled {
		delete(fields, k)
	}
	if res, ok := fields["resources"]; ok {
		var rest map[string]json.RawMessage
		if json.Unmarshal(res, &rest) == nil {
			delete(rest, "requests")
			delete(rest, "limits")
			if len(rest) == 0 {
				delete(fields, "resources")
			} else if b, err := json.Marshal(rest); err == nil {
				fields["resources"] = b
			}
		}
	}
	maps.DeleteFunc(fields, func(_ string, v json.RawMessage) bool { return string(v) == "null" })
	if len(fields) == 0 {
		return nil
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return nil
	}
	return out
}

// unmodeledInto sets into (a *corev1.PodSpec or *corev1.Container) from
// what Unmodeled kept; herd's own fields are set over it after.
func unmodeledInto(raw json.RawMessage, into any) {
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, into) // written by unmodeled from the same type
	}
}

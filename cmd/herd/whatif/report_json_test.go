package whatif

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The answer over the API gives each workload's whole time below its
// desired availability, real and simulated, not only the ones that
// differ, in the durations herd writes everywhere else.
func TestTheAnswerGivesEveryWorkloadsTimeBelowDesired(t *testing.T) {
	rep := Report{
		Actual: Outcome{Below: Durations{"deployment default/api": 90 * time.Second, "replicaset default/cache": 0}},
		WhatIf: Outcome{Below: Durations{"deployment default/api": 90 * time.Second}},
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"actual":{`, `"belowDesired":{"deployment default/api":"1m30s","replicaset default/cache":"0s"}`, `"belowDesired":{"deployment default/api":"1m30s"}`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the answer %s does not hold %s", data, want)
		}
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Actual.Below["deployment default/api"] != 90*time.Second || len(back.Actual.Below) != 2 || len(back.WhatIf.Below) != 1 {
		t.Errorf("read back %v / %v", back.Actual.Below, back.WhatIf.Below)
	}
	if err := json.Unmarshal([]byte(`{"actual":{"belowDesired":{"deployment default/api":"soon"}}}`), &back); err == nil || !strings.Contains(err.Error(), "deployment default/api") {
		t.Errorf("a time that is no duration read as %v", err)
	}
}

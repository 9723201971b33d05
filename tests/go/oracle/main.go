// Command oracle answers JSON requests, one per line on stdin, with upstream Cluster API's own
// functions, one JSON line per request on stdout. The Rust property tests
// (capi_test_support::oracle) send the objects they generate here and to the Rust code, and
// compare the bytes.
//
// Request: {"op": "...", ...}. Answer: {"ok": <value>, "ok_bytes": "<exact JSON Go wrote>"}
// or {"error": "<message>"}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	webhookconversion "sigs.k8s.io/cluster-api/core/webhooks/conversion"
	"sigs.k8s.io/cluster-api/util/conditions"
	utilconversion "sigs.k8s.io/cluster-api/util/conversion"
	"sigs.k8s.io/cluster-api/util/labels/format"
)

type request struct {
	Op string `json:"op"`

	// convert-machinepool
	To     string            `json:"to,omitempty"`
	Object json.RawMessage   `json:"object,omitempty"`
	Map    map[string]string `json:"map,omitempty"`

	// marshal-data
	Unsafe bool `json:"unsafe,omitempty"`

	// unmarshal-data
	Annotations map[string]string `json:"annotations,omitempty"`

	// format-label
	Value string  `json:"value,omitempty"`
	Label *string `json:"label,omitempty"`

	// conditions-summary / conditions-mirror
	Conditions    []metav1.Condition `json:"conditions,omitempty"`
	Target        string             `json:"target,omitempty"`
	For           []string           `json:"for,omitempty"`
	Negative      []string           `json:"negative,omitempty"`
	IgnoreMissing []string           `json:"ignoreMissing,omitempty"`
	Source        string             `json:"source,omitempty"`
	Fallback      *struct {
		Status  metav1.ConditionStatus `json:"status"`
		Reason  string                 `json:"reason"`
		Message string                 `json:"message"`
	} `json:"fallback,omitempty"`
}

type answer struct {
	Ok      any     `json:"ok,omitempty"`
	OkBytes *string `json:"ok_bytes,omitempty"`
	Error   *string `json:"error,omitempty"`
}

// getter holds conditions for the util/conditions helpers.
type getter struct{ conditions []metav1.Condition }

func (g getter) GetConditions() []metav1.Condition { return g.conditions }

var (
	scheme  = runtime.NewScheme()
	decoder *kjson.Serializer
	// apiVersions is the group/Kind -> apiVersion map of the current request.
	apiVersions map[string]string
)

func main() {
	if err := clusterv1beta1.AddToScheme(scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := clusterv1.AddToScheme(scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The API server's and controller-runtime's JSON decoding: case-sensitive keys.
	decoder = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{})
	webhookconversion.SetAPIVersionGetter(func(_ context.Context, gk schema.GroupKind) (string, error) {
		key := gk.Group + "/" + gk.Kind
		if v, ok := apiVersions[key]; ok {
			return v, nil
		}
		return "", fmt.Errorf("no apiVersion known for %s", key)
	})

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		ans := handle([]byte(line))
		data, err := json.Marshal(ans)
		if err != nil {
			msg := err.Error()
			data, _ = json.Marshal(answer{Error: &msg})
		}
		out.Write(data)
		out.WriteByte('\n')
		out.Flush()
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func fail(err error) answer {
	msg := err.Error()
	return answer{Error: &msg}
}

func okValue(v any) answer {
	data, err := json.Marshal(v)
	if err != nil {
		return fail(err)
	}
	s := string(data)
	return answer{Ok: json.RawMessage(data), OkBytes: &s}
}

func handle(line []byte) (ans answer) {
	defer func() {
		if r := recover(); r != nil {
			ans = fail(fmt.Errorf("panic: %v", r))
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return fail(fmt.Errorf("bad request: %w", err))
	}
	switch req.Op {
	case "convert-machinepool":
		return convertMachinePool(req)
	case "marshal-data":
		return marshalData(req)
	case "unmarshal-data":
		return unmarshalData(req)
	case "format-label":
		formatted := format.MustFormatValue(req.Value)
		if req.Label != nil {
			return okValue(map[string]any{"formatted": formatted, "equal": format.MustEqualValue(req.Value, *req.Label)})
		}
		return okValue(map[string]any{"formatted": formatted})
	case "conditions-summary":
		var opts []conditions.SummaryOption
		opts = append(opts, conditions.ForConditionTypes(req.For))
		if len(req.Negative) > 0 {
			opts = append(opts, conditions.NegativePolarityConditionTypes(req.Negative))
		}
		if len(req.IgnoreMissing) > 0 {
			opts = append(opts, conditions.IgnoreTypesIfMissing(req.IgnoreMissing))
		}
		c, err := conditions.NewSummaryCondition(getter{req.Conditions}, req.Target, opts...)
		if err != nil {
			return fail(err)
		}
		return okValue(c)
	case "conditions-mirror":
		var opts []conditions.MirrorOption
		if req.Target != "" {
			opts = append(opts, conditions.TargetConditionType(req.Target))
		}
		if req.Fallback != nil {
			opts = append(opts, conditions.FallbackCondition{Status: req.Fallback.Status, Reason: req.Fallback.Reason, Message: req.Fallback.Message})
		}
		return okValue(conditions.NewMirrorCondition(getter{req.Conditions}, req.Source, opts...))
	case "machinepool-upgrading":
		return machinePoolUpgrading(line)
	case "topology-next-control-plane-version":
		return topologyNextControlPlaneVersion(line)
	case "topology-next-versions":
		return topologyNextVersions(line)
	default:
		return fail(fmt.Errorf("unknown op %q", req.Op))
	}
}

func decode(data []byte, into runtime.Object) error {
	_, _, err := decoder.Decode(data, nil, into)
	return err
}

func convertMachinePool(req request) answer {
	apiVersions = req.Map
	ctx := context.Background()
	switch req.To {
	case "v1beta2":
		src := &clusterv1beta1.MachinePool{}
		if err := decode(req.Object, src); err != nil {
			return fail(err)
		}
		dst := &clusterv1.MachinePool{}
		if err := webhookconversion.ConvertMachinePoolV1Beta1ToHub(ctx, src, dst); err != nil {
			return fail(err)
		}
		dst.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("MachinePool"))
		return okValue(dst)
	case "v1beta1":
		src := &clusterv1.MachinePool{}
		if err := decode(req.Object, src); err != nil {
			return fail(err)
		}
		dst := &clusterv1beta1.MachinePool{}
		if err := webhookconversion.ConvertMachinePoolHubToV1Beta1(ctx, src, dst); err != nil {
			return fail(err)
		}
		dst.SetGroupVersionKind(clusterv1beta1.GroupVersion.WithKind("MachinePool"))
		return okValue(dst)
	default:
		return fail(fmt.Errorf("unknown target version %q", req.To))
	}
}

// marshalData stores a v1beta2 MachinePool as conversion data on an empty v1beta1 one and
// returns the annotation's value.
func marshalData(req request) answer {
	src := &clusterv1.MachinePool{}
	if err := decode(req.Object, src); err != nil {
		return fail(err)
	}
	dst := &clusterv1beta1.MachinePool{}
	var err error
	if req.Unsafe {
		err = utilconversion.MarshalDataUnsafeNoCopy(src, dst)
	} else {
		err = utilconversion.MarshalData(src, dst)
	}
	if err != nil {
		return fail(err)
	}
	return okValue(dst.GetAnnotations()[utilconversion.DataAnnotation])
}

// unmarshalData reads the conversion data of an object with the given annotations into a v1beta2
// MachinePool and returns whether there was any, the restored object and the annotations left.
func unmarshalData(req request) answer {
	from := &clusterv1beta1.MachinePool{}
	from.SetAnnotations(req.Annotations)
	restored := &clusterv1.MachinePool{}
	found, err := utilconversion.UnmarshalData(from, restored)
	if err != nil {
		return fail(err)
	}
	return okValue(map[string]any{"found": found, "restored": restored, "annotations": from.GetAnnotations()})
}

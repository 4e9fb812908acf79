// Conformance checks with client-go, run against one server (our API or kube-apiserver) named by a kubeconfig:
// every check prints one JSON line {"check", "outcome"} whose outcome holds nothing server-specific (no
// resourceVersions, uids or times), so the test that runs this against both servers compares them as they are.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var nginxes = schema.GroupVersionResource{Group: "mycompany.com", Version: "v1", Resource: "nginxes"}

// warnings collects the Warning headers client-go parsed (a malformed header is dropped by its parser).
type warnings struct {
	mu    sync.Mutex
	texts []string
}

func (w *warnings) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.texts = append(w.texts, fmt.Sprintf("%d %s", code, text))
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	taken := w.texts
	w.texts = nil
	return taken
}

type checks struct {
	ctx       context.Context
	ns        string
	config    *rest.Config
	dyn       dynamic.Interface
	nginx     dynamic.ResourceInterface
	warnings  *warnings
	discovery discovery.DiscoveryInterface
	// canaries: Nginxes in the namespace a controller watches (no other check's objects see a status written there).
	canaryNs string
	canaries dynamic.ResourceInterface
	// controlplane: the server is our API, which also serves POST …/promote and …/abort.
	controlplane bool
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the server to check")
	namespace := flag.String("namespace", "", "namespace to work in (it must exist)")
	only := flag.String("only", "", "run only the checks whose names contain this")
	canaryNamespace := flag.String("canary-namespace", "", "a namespace a controller watches (for the canary check)")
	controlplane := flag.Bool("controlplane", false, "the server is our API: promote and abort through its /controlplane/v1 requests")
	flag.Parse()
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	collected := &warnings{}
	config.WarningHandler = collected
	config.QPS, config.Burst = 50, 100
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		fail(err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := &checks{ctx, *namespace, config, dyn, dyn.Resource(nginxes).Namespace(*namespace), collected, disco, *canaryNamespace, dyn.Resource(nginxes).Namespace(*canaryNamespace), *controlplane}
	for _, check := range []struct {
		name string
		run  func() string
	}{
		{"protocol client-go negotiates", c.protocol},
		{"discovery: nginxes verbs", c.discoveryVerbs},
		{"create", c.create},
		{"create: AlreadyExists", c.createDuplicate},
		{"get: NotFound", c.getMissing},
		{"create: Invalid", c.createInvalid},
		{"create: Invalid by the schema and a CEL rule", c.createInvalidTwice},
		{"create: unknown field warns", c.unknownFieldWarns},
		{"update: stale resourceVersion is a Conflict", c.staleUpdate},
		{"dynamic shared informer", c.informer},
		{"scale client: get, update, patch", c.scaleClient},
		{"server-side apply: two managers", c.twoManagers},
		{"deletecollection by label", c.deleteCollection},
		{"deletecollection: nothing matches", c.deleteCollectionNone},
		{"deletecollection: bad selector", c.deleteCollectionBadSelector},
		{"unserved method is MethodNotSupported", c.methodNotSupported},
		{"canary: paused, promoted, aborted", c.canary},
	} {
		if *only != "" && !strings.Contains(check.name, *only) {
			continue
		}
		collected.take()
		line, _ := json.Marshal(map[string]string{"check": check.name, "outcome": check.run()})
		fmt.Println(string(line))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(2)
}

// outcome of an error as client-go's typed checks see it.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		return "error: " + err.Error()
	}
	s := status.Status()
	typed := []string{}
	for name, is := range map[string]func(error) bool{
		"IsNotFound": apierrors.IsNotFound, "IsAlreadyExists": apierrors.IsAlreadyExists,
		"IsConflict": apierrors.IsConflict, "IsInvalid": apierrors.IsInvalid,
		"IsBadRequest": apierrors.IsBadRequest, "IsMethodNotSupported": apierrors.IsMethodNotSupported,
		"IsUnsupportedMediaType": apierrors.IsUnsupportedMediaType, "IsForbidden": apierrors.IsForbidden,
	} {
		if is(err) {
			typed = append(typed, name)
		}
	}
	sort.Strings(typed)
	result := fmt.Sprintf("%d %s %s", s.Code, s.Reason, strings.Join(typed, ","))
	if s.Details != nil && len(s.Details.Causes) > 0 {
		fields := []string{}
		for _, cause := range s.Details.Causes {
			fields = append(fields, fmt.Sprintf("%s:%s", cause.Type, cause.Field))
		}
		sort.Strings(fields)
		result += " causes=" + strings.Join(fields, ",")
	}
	return result
}

func nginx(name string, replicas int64, labels map[string]interface{}) *unstructured.Unstructured {
	metadata := map[string]interface{}{"name": name}
	if labels != nil {
		metadata["labels"] = labels
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "mycompany.com/v1", "kind": "Nginx", "metadata": metadata,
		"spec": map[string]interface{}{"replicas": replicas},
	}}
}

// protocol: what client-go's own transport speaks to the server (HTTP/2 when the server offers h2 in ALPN).
func (c *checks) protocol() string {
	client, err := rest.HTTPClientFor(c.config)
	if err != nil {
		return "error: " + err.Error()
	}
	response, err := client.Get(strings.TrimSuffix(c.config.Host, "/") + "/apis/mycompany.com/v1")
	if err != nil {
		return "error: " + err.Error()
	}
	defer response.Body.Close()
	return fmt.Sprintf("%s %d", response.Proto, response.StatusCode)
}

func (c *checks) discoveryVerbs() string {
	list, err := c.discovery.ServerResourcesForGroupVersion("mycompany.com/v1")
	if err != nil {
		return outcome(err)
	}
	for _, resource := range list.APIResources {
		if resource.Name == "nginxes" {
			verbs := append([]string{}, resource.Verbs...)
			sort.Strings(verbs)
			return strings.Join(verbs, ",")
		}
	}
	return "no nginxes"
}

func (c *checks) create() string {
	created, err := c.nginx.Create(c.ctx, nginx("web-a", 0, map[string]interface{}{"app": "conformance"}), metav1.CreateOptions{})
	if err != nil {
		return outcome(err)
	}
	got, err := c.nginx.Get(c.ctx, "web-a", metav1.GetOptions{})
	if err != nil {
		return outcome(err)
	}
	return fmt.Sprintf("created %s, read back %s", created.GetName(), got.GetName())
}

func (c *checks) createDuplicate() string {
	_, err := c.nginx.Create(c.ctx, nginx("web-a", 0, nil), metav1.CreateOptions{})
	return outcome(err)
}

func (c *checks) getMissing() string {
	_, err := c.nginx.Get(c.ctx, "no-such-nginx", metav1.GetOptions{})
	return outcome(err)
}

func (c *checks) createInvalid() string {
	_, err := c.nginx.Create(c.ctx, nginx("web-invalid", -1, nil), metav1.CreateOptions{})
	return outcome(err)
}

func (c *checks) createInvalidTwice() string {
	object := nginx("web-invalid", -1, nil)
	object.Object["spec"].(map[string]interface{})["minReadySeconds"] = int64(700)
	_, err := c.nginx.Create(c.ctx, object, metav1.CreateOptions{})
	return outcome(err)
}

func (c *checks) unknownFieldWarns() string {
	object := nginx("web-unknown", 0, nil)
	object.Object["spec"].(map[string]interface{})["noSuchField"] = "x"
	_, err := c.nginx.Create(c.ctx, object, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return fmt.Sprintf("%s, warnings %q", outcome(err), c.warnings.take())
}

func (c *checks) staleUpdate() string {
	read, err := c.nginx.Get(c.ctx, "web-a", metav1.GetOptions{})
	if err != nil {
		return outcome(err)
	}
	fresh := read.DeepCopy()
	fresh.SetAnnotations(map[string]string{"touched": "1"})
	if _, err := c.nginx.Update(c.ctx, fresh, metav1.UpdateOptions{}); err != nil {
		return "first update: " + outcome(err)
	}
	read.SetAnnotations(map[string]string{"touched": "2"})
	_, err = c.nginx.Update(c.ctx, read, metav1.UpdateOptions{})
	return outcome(err)
}

// informer: a dynamic shared informer sees one object added, updated and deleted, in that order.
func (c *checks) informer() string {
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(c.dyn, 0, c.ns, func(options *metav1.ListOptions) {
		options.LabelSelector = "informer=yes"
	})
	informer := factory.ForResource(nginxes).Informer()
	var mu sync.Mutex
	seen := []string{}
	note := func(event string, object interface{}) {
		if u, ok := object.(*unstructured.Unstructured); ok && u.GetName() == "web-informed" {
			mu.Lock()
			seen = append(seen, event)
			mu.Unlock()
		}
	}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o interface{}) { note("add", o) },
		UpdateFunc: func(_, o interface{}) { note("update", o) },
		DeleteFunc: func(o interface{}) {
			if tombstone, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = tombstone.Obj
			}
			note("delete", o)
		},
	})
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	if !cache.WaitForCacheSync(stop, informer.HasSynced) {
		return "never synced"
	}
	wait := func(n int) bool {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			mu.Lock()
			done := len(seen) >= n
			mu.Unlock()
			if done {
				return true
			}
		}
		return false
	}
	if _, err := c.nginx.Create(c.ctx, nginx("web-informed", 0, map[string]interface{}{"informer": "yes"}), metav1.CreateOptions{}); err != nil {
		return "create: " + outcome(err)
	}
	wait(1)
	patch := []byte(`{"spec":{"replicas":1}}`)
	if _, err := c.nginx.Patch(c.ctx, "web-informed", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return "patch: " + outcome(err)
	}
	wait(2)
	if err := c.nginx.Delete(c.ctx, "web-informed", metav1.DeleteOptions{}); err != nil {
		return "delete: " + outcome(err)
	}
	wait(3)
	mu.Lock()
	defer mu.Unlock()
	return strings.Join(seen, ",")
}

// scaleClient: the scale client (which PUTs JSON without a Content-Type) reads and writes /scale.
func (c *checks) scaleClient() string {
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.discovery))
	resolver := scale.NewDiscoveryScaleKindResolver(c.discovery)
	scales, err := scale.NewForConfig(c.config, mapper, dynamic.LegacyAPIPathResolverFunc, resolver)
	if err != nil {
		return "error: " + err.Error()
	}
	resource := schema.GroupResource{Group: "mycompany.com", Resource: "nginxes"}
	got, err := scales.Scales(c.ns).Get(c.ctx, resource, "web-a", metav1.GetOptions{})
	if err != nil {
		return "get: " + outcome(err)
	}
	steps := []string{fmt.Sprintf("get %d", got.Spec.Replicas)}
	got.Spec.Replicas = 2
	updated, err := scales.Scales(c.ns).Update(c.ctx, resource, got, metav1.UpdateOptions{})
	if err != nil {
		return strings.Join(append(steps, "update: "+outcome(err)), "; ")
	}
	steps = append(steps, fmt.Sprintf("update %d", updated.Spec.Replicas))
	patch := []byte(`{"spec":{"replicas":1}}`)
	gvr := nginxes
	patched, err := scales.Scales(c.ns).Patch(c.ctx, gvr, "web-a", types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return strings.Join(append(steps, "patch: "+outcome(err)), "; ")
	}
	steps = append(steps, fmt.Sprintf("patch %d", patched.Spec.Replicas))
	return strings.Join(steps, "; ")
}

// twoManagers: manager b's apply that conflicts with a's field is refused, and nothing of a's is lost; forced,
// it takes that field only.
func (c *checks) twoManagers() string {
	apply := func(manager string, force bool, object map[string]interface{}) error {
		body := &unstructured.Unstructured{Object: object}
		_, err := c.nginx.Apply(c.ctx, "web-ssa", body, metav1.ApplyOptions{FieldManager: manager, Force: force})
		return err
	}
	head := func(extra map[string]interface{}, spec map[string]interface{}) map[string]interface{} {
		metadata := map[string]interface{}{"name": "web-ssa"}
		for k, v := range extra {
			metadata[k] = v
		}
		return map[string]interface{}{"apiVersion": "mycompany.com/v1", "kind": "Nginx", "metadata": metadata, "spec": spec}
	}
	state := func() string {
		got, err := c.nginx.Get(c.ctx, "web-ssa", metav1.GetOptions{})
		if err != nil {
			return outcome(err)
		}
		labels := []string{}
		for k, v := range got.GetLabels() {
			labels = append(labels, k+"="+v)
		}
		sort.Strings(labels)
		port, _, _ := unstructured.NestedInt64(got.Object, "spec", "port")
		owners := []string{}
		for _, entry := range got.GetManagedFields() {
			if entry.FieldsV1 != nil && strings.Contains(string(entry.FieldsV1.Raw), `"f:port"`) {
				owners = append(owners, entry.Manager)
			}
		}
		sort.Strings(owners)
		return fmt.Sprintf("labels %s, port %d owned by %s", strings.Join(labels, ","), port, strings.Join(owners, ","))
	}
	steps := []string{}
	err := apply("a", false, head(map[string]interface{}{"labels": map[string]interface{}{"team": "x", "tier": "web"}},
		map[string]interface{}{"replicas": int64(0), "port": int64(8080)}))
	steps = append(steps, "a applies: "+outcome(err), state())
	err = apply("b", false, head(nil, map[string]interface{}{"replicas": int64(0), "port": int64(8081)}))
	steps = append(steps, "b applies: "+outcome(err), state())
	err = apply("b", true, head(nil, map[string]interface{}{"replicas": int64(0), "port": int64(8081)}))
	steps = append(steps, "b forces: "+outcome(err), state())
	err = apply("a", false, head(map[string]interface{}{"labels": map[string]interface{}{"team": "x"}},
		map[string]interface{}{"replicas": int64(0)}))
	steps = append(steps, "a drops tier and port: "+outcome(err), state())
	return strings.Join(steps, "; ")
}

func (c *checks) deleteCollection() string {
	for _, name := range []string{"web-del-1", "web-del-2"} {
		if _, err := c.nginx.Create(c.ctx, nginx(name, 0, map[string]interface{}{"sweep": "yes"}), metav1.CreateOptions{}); err != nil {
			return "create: " + outcome(err)
		}
	}
	err := c.nginx.DeleteCollection(c.ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "sweep=yes"})
	left, listErr := c.nginx.List(c.ctx, metav1.ListOptions{LabelSelector: "sweep=yes"})
	if listErr != nil {
		return outcome(err) + ", list: " + outcome(listErr)
	}
	others, _ := c.nginx.Get(c.ctx, "web-a", metav1.GetOptions{})
	return fmt.Sprintf("%s, %d left, web-a kept: %t", outcome(err), len(left.Items), others != nil)
}

func (c *checks) deleteCollectionNone() string {
	err := c.nginx.DeleteCollection(c.ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "sweep=never"})
	return fmt.Sprintf("%s, IsNotFound %t", outcome(err), apierrors.IsNotFound(err))
}

func (c *checks) deleteCollectionBadSelector() string {
	err := c.nginx.DeleteCollection(c.ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app in ("})
	_, getErr := c.nginx.Get(c.ctx, "web-a", metav1.GetOptions{})
	return fmt.Sprintf("%s, web-a kept: %t", outcome(err), getErr == nil)
}

// methodNotSupported: methods no route serves, through client-go's REST client.
func (c *checks) methodNotSupported() string {
	config := *c.config
	config.GroupVersion = &schema.GroupVersion{Group: "mycompany.com", Version: "v1"}
	config.APIPath = "/apis"
	config.NegotiatedSerializer = unstructuredScheme()
	client, err := rest.RESTClientFor(&config)
	if err != nil {
		return "error: " + err.Error()
	}
	base := fmt.Sprintf("/apis/mycompany.com/v1/namespaces/%s/nginxes", c.ns)
	results := []string{}
	for _, request := range []*rest.Request{
		client.Put().AbsPath(base).Body([]byte(`{}`)),
		client.Patch(types.MergePatchType).AbsPath(base).Body([]byte(`{}`)),
		client.Delete().AbsPath(base + "/web-a/status"),
		client.Post().AbsPath(base + "/web-a/scale").Body([]byte(`{}`)),
	} {
		results = append(results, outcome(request.Do(c.ctx).Error()))
	}
	return strings.Join(results, "; ")
}

// unstructuredScheme: a serializer for a bare REST client that knows only Status (what these requests answer).
func unstructuredScheme() runtime.NegotiatedSerializer {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return serializer.WithoutConversionCodecFactory{CodecFactory: serializer.NewCodecFactory(scheme)}
}

// canary: a Canary Nginx whose image changes stops at its `pause: {}` step; it is promoted past it, and the next
// change is aborted there. The requests go as `kubectl annotate` sends them (a merge patch of the annotation the
// controller honours) or, against our API, as POST …/promote?step=n and …/abort through client-go's REST client;
// status.canary is read with the dynamic client, field by field from the unstructured object.
func (c *checks) canary() string {
	const name = "web-canary"
	body := nginx(name, 2, nil)
	body.Object["spec"] = map[string]interface{}{
		"replicas": int64(2),
		"image":    "nginx:1.27",
		"strategy": map[string]interface{}{"type": "Canary", "canary": map[string]interface{}{"steps": []interface{}{
			map[string]interface{}{"setWeight": int64(50)},
			map[string]interface{}{"pause": map[string]interface{}{}},
		}}},
	}
	if _, err := c.canaries.Create(c.ctx, body, metav1.CreateOptions{}); err != nil {
		return "create: " + outcome(err)
	}
	if _, err := c.waitFor(name, func(o *unstructured.Unstructured) bool {
		available, _, _ := unstructured.NestedInt64(o.Object, "status", "availableReplicas")
		return available == 2
	}); err != nil {
		return "rolled out: " + err.Error()
	}
	steps := []string{}
	for _, change := range []struct{ image, request string }{{"nginx:1.28", "promote"}, {"nginx:1.29", "abort"}} {
		patch := fmt.Sprintf(`{"spec":{"image":%q}}`, change.image)
		if _, err := c.canaries.Patch(c.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			return "change the image: " + outcome(err)
		}
		paused, err := c.waitFor(name, canaryPhase("Paused"))
		if err != nil {
			return strings.Join(append(steps, "paused: "+err.Error()), "; ")
		}
		revision, _, _ := unstructured.NestedString(paused.Object, "status", "canary", "revision")
		update, _, _ := unstructured.NestedString(paused.Object, "status", "updateRevision")
		step, _, _ := unstructured.NestedInt64(paused.Object, "status", "canary", "step")
		weight, _, _ := unstructured.NestedInt64(paused.Object, "status", "canary", "weight")
		steps = append(steps, fmt.Sprintf("Paused at step %d, weight %d, of the update revision: %t", step, weight, revision == update))
		if err := c.canaryRequest(name, change.request, revision, step); err != nil {
			return strings.Join(append(steps, change.request+": "+err.Error()), "; ")
		}
		want := map[string]string{"promote": "Promoted", "abort": "Aborted"}[change.request]
		done, err := c.waitFor(name, canaryPhase(want))
		if err != nil {
			return strings.Join(append(steps, change.request+"d: "+err.Error()), "; ")
		}
		step, _, _ = unstructured.NestedInt64(done.Object, "status", "canary", "step")
		steps = append(steps, fmt.Sprintf("%s: %s at step %d", change.request, want, step))
	}
	return strings.Join(steps, "; ")
}

// canaryRequest promotes past `step` or aborts the canary of `revision`: the annotation, or our API's request.
func (c *checks) canaryRequest(name, request, revision string, step int64) error {
	if !c.controlplane {
		key, value := "mycompany.com/abort", revision
		if request == "promote" {
			key, value = "mycompany.com/promote", fmt.Sprintf("%s/%d", revision, step)
		}
		patch, _ := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"annotations": map[string]string{key: value}}})
		_, err := c.canaries.Patch(c.ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}
	config := *c.config
	config.GroupVersion = &schema.GroupVersion{Group: "mycompany.com", Version: "v1"}
	config.APIPath = "/apis"
	config.NegotiatedSerializer = unstructuredScheme()
	client, err := rest.RESTClientFor(&config)
	if err != nil {
		return err
	}
	call := client.Post().AbsPath("/controlplane/v1/namespaces", c.canaryNs, "nginxes", name, request)
	if request == "promote" {
		call = call.Param("step", fmt.Sprint(step))
	}
	raw, err := call.DoRaw(c.ctx)
	if err != nil {
		return fmt.Errorf("%s", outcome(err))
	}
	var answered unstructured.Unstructured
	if err := json.Unmarshal(raw, &answered.Object); err != nil || answered.GetName() != name {
		return fmt.Errorf("the answer is not the Nginx: %.200s", raw)
	}
	return nil
}

func canaryPhase(phase string) func(*unstructured.Unstructured) bool {
	return func(o *unstructured.Unstructured) bool {
		got, _, _ := unstructured.NestedString(o.Object, "status", "canary", "phase")
		return got == phase
	}
}

// waitFor gets the Nginx until `done` holds (90 seconds at most).
func (c *checks) waitFor(name string, done func(*unstructured.Unstructured) bool) (*unstructured.Unstructured, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		got, err := c.canaries.Get(c.ctx, name, metav1.GetOptions{})
		if err == nil && done(got) {
			return got, nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("%s", outcome(err))
			}
			status, _ := json.Marshal(got.Object["status"])
			return nil, fmt.Errorf("timed out, status %.300s", status)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

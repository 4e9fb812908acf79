"""Conformance checks with the official Python `kubernetes` client, run against one server (our API or
kube-apiserver) named by a kubeconfig. Each check prints one JSON line {"check", "outcome"} holding nothing
server-specific, so the test that runs this against both servers compares the outcomes as they are."""

import argparse
import json
import os
import tempfile
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient

GROUP, VERSION, PLURAL = "mycompany.com", "v1", "nginxes"


def nginx(name, replicas=0, labels=None):
    metadata = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Nginx", "metadata": metadata, "spec": {"replicas": replicas}}


def failure(error):
    """An ApiException as a caller sees it: its HTTP status and the Status reason in its body."""
    if not isinstance(error, ApiException):
        return f"error: {type(error).__name__}: {error}"
    try:
        reason = json.loads(error.body).get("reason", "")
    except (TypeError, ValueError):
        reason = "(no Status body)"
    return f"{error.status} {reason}"


class Checks:
    def __init__(self, api_client, namespace, canary_namespace, controlplane=False):
        self.api = client.CustomObjectsApi(api_client)
        self.api_client = api_client
        self.ns = namespace
        # Where a controller runs: the canary's namespace (no other check's objects see a status written there).
        self.canary_ns = canary_namespace
        # The server is our API, which also serves POST …/promote and …/abort.
        self.controlplane = controlplane

    def custom_objects(self):
        """create, get, list, replace, patch and delete, as CustomObjectsApi sends them (no Content-Type on the
        create and replace)."""
        steps = []
        created = self.api.create_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, nginx("py-a", 0, {"app": "py"}))
        steps.append(f"created {created['metadata']['name']}")
        got = self.api.get_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, "py-a")
        got["spec"]["replicas"] = 1
        replaced = self.api.replace_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, "py-a", got)
        steps.append(f"replaced replicas {replaced['spec']['replicas']}")
        listed = self.api.list_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, label_selector="app=py")
        steps.append("listed " + ",".join(sorted(item["metadata"]["name"] for item in listed["items"])))
        patched = self.api.patch_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, "py-a", {"spec": {"replicas": 0}})
        steps.append(f"patched replicas {patched['spec']['replicas']}")
        return "; ".join(steps)

    def scale(self):
        got = self.api.get_namespaced_custom_object_scale(GROUP, VERSION, self.ns, PLURAL, "py-a")
        steps = [f"get {got['spec'].get('replicas')}"]
        body = {
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": {"name": "py-a", "namespace": self.ns},
            "spec": {"replicas": 2},
        }
        replaced = self.api.replace_namespaced_custom_object_scale(GROUP, VERSION, self.ns, PLURAL, "py-a", body)
        steps.append(f"replace {replaced['spec']['replicas']}")
        patched = self.api.patch_namespaced_custom_object_scale(GROUP, VERSION, self.ns, PLURAL, "py-a", {"spec": {"replicas": 1}})
        steps.append(f"patch {patched['spec']['replicas']}")
        return "; ".join(steps)

    def errors(self):
        outcomes = []
        for call in (
            lambda: self.api.get_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, "no-such-nginx"),
            lambda: self.api.create_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, nginx("py-a")),
            lambda: self.api.create_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, nginx("py-bad", -1)),
        ):
            try:
                call()
                outcomes.append("ok")
            except ApiException as error:
                outcomes.append(failure(error))
        return "; ".join(outcomes)

    def watch_stream(self):
        """watch.Watch().stream sees one object added, modified and deleted."""
        events = []
        started = threading.Event()
        stream = watch.Watch()

        def follow():
            try:
                for event in stream.stream(
                    self.api.list_namespaced_custom_object, GROUP, VERSION, self.ns, PLURAL,
                    label_selector="watched=yes", timeout_seconds=30,
                ):
                    started.set()
                    events.append(event["type"])
                    if event["type"] == "DELETED":
                        stream.stop()
            except Exception as error:  # reported in the outcome
                events.append(f"error: {error}")
            started.set()

        thread = threading.Thread(target=follow, daemon=True)
        thread.start()
        time.sleep(1)
        self.api.create_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, nginx("py-watched", 0, {"watched": "yes"}))
        time.sleep(0.5)
        self.api.patch_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, "py-watched", {"spec": {"replicas": 1}})
        time.sleep(0.5)
        self.api.delete_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, "py-watched")
        thread.join(30)
        return ",".join(events)

    def delete_collection(self):
        for name in ("py-del-1", "py-del-2"):
            self.api.create_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, nginx(name, 0, {"sweep": "py"}))
        answer = self.api.delete_collection_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, label_selector="sweep=py")
        names = sorted(item["metadata"]["name"] for item in answer.get("items", []))
        left = self.api.list_namespaced_custom_object(GROUP, VERSION, self.ns, PLURAL, label_selector="sweep=py")
        return f"{answer.get('kind')} of {','.join(names)}, {len(left['items'])} left"

    def dynamic_discovery(self):
        """DynamicClient finds Nginx by kind alone (it reads /api/v1 first) and by apiVersion, then lists."""
        cache = os.path.join(tempfile.mkdtemp(), "discovery.json")
        dynamic = DynamicClient(self.api_client, cache_file=cache)
        by_kind = dynamic.resources.get(kind="Nginx")
        by_version = dynamic.resources.get(api_version=f"{GROUP}/{VERSION}", kind="Nginx")
        listed = by_version.get(namespace=self.ns, label_selector="app=py")
        names = ",".join(sorted(item.metadata.name for item in listed.items))
        return f"{by_kind.group_version} {by_kind.name}; {by_version.name} lists {names}"

    def dynamic_apply(self):
        dynamic = DynamicClient(self.api_client, cache_file=os.path.join(tempfile.mkdtemp(), "discovery.json"))
        nginxes = dynamic.resources.get(api_version=f"{GROUP}/{VERSION}", kind="Nginx")
        body = nginx("py-ssa", 0, {"owner": "py"})
        body["spec"]["port"] = 8080
        applied = nginxes.server_side_apply(body=body, name="py-ssa", namespace=self.ns, field_manager="py-a")
        steps = [f"applied port {applied.spec.port}"]
        other = nginx("py-ssa", 0)
        other["spec"]["port"] = 8081
        try:
            nginxes.server_side_apply(body=other, name="py-ssa", namespace=self.ns, field_manager="py-b")
            steps.append("second manager: ok")
        except ApiException as error:
            steps.append(f"second manager: {failure(error)}")
        got = nginxes.get(name="py-ssa", namespace=self.ns)
        steps.append(f"port {got.spec.port}, labels {dict(got.metadata.labels or {})}")
        return "; ".join(steps)

    def canary(self):
        """A Canary Nginx whose image changes stops at its `pause: {}` step; it is promoted past it, and the next
        change is aborted there. The requests go as `kubectl annotate` sends them (a merge patch of the annotation
        the controller honours) or, against our API, as POST …/promote?step=n and …/abort through the client's
        call_api; status.canary is read with CustomObjectsApi."""
        name = "py-canary"
        body = nginx(name, 2)
        body["spec"] = {
            "replicas": 2,
            "image": "nginx:1.27",
            "strategy": {"type": "Canary", "canary": {"steps": [{"setWeight": 50}, {"pause": {}}]}},
        }
        self.api.create_namespaced_custom_object(GROUP, VERSION, self.canary_ns, PLURAL, body)
        self.wait_for(name, lambda status: status.get("availableReplicas") == 2)
        steps = []
        for image, request, phase in (("nginx:1.28", "promote", "Promoted"), ("nginx:1.29", "abort", "Aborted")):
            self.api.patch_namespaced_custom_object(GROUP, VERSION, self.canary_ns, PLURAL, name, {"spec": {"image": image}})
            status = self.wait_for(name, lambda status: status.get("canary", {}).get("phase") == "Paused")
            canary = status["canary"]
            steps.append(
                f"Paused at step {canary['step']}, weight {canary['weight']}, "
                f"of the update revision: {str(canary['revision'] == status.get('updateRevision')).lower()}"
            )
            self.canary_request(name, request, canary["revision"], canary["step"])
            done = self.wait_for(name, lambda status: status.get("canary", {}).get("phase") == phase)
            steps.append(f"{request}: {phase} at step {done['canary']['step']}")
        return "; ".join(steps)

    def canary_request(self, name, request, revision, step):
        if not self.controlplane:
            key, value = ("mycompany.com/promote", f"{revision}/{step}") if request == "promote" else ("mycompany.com/abort", revision)
            self.api.patch_namespaced_custom_object(GROUP, VERSION, self.canary_ns, PLURAL, name, {"metadata": {"annotations": {key: value}}})
            return
        method, url, headers, body, post = self.api_client.param_serialize(
            "POST", f"/controlplane/v1/namespaces/{{namespace}}/nginxes/{{name}}/{request}",
            path_params={"namespace": self.canary_ns, "name": name},
            query_params=[("step", str(step))] if request == "promote" else [],
            header_params={"Accept": "application/json"}, auth_settings=["BearerToken"],
        )
        response = self.api_client.call_api(method, url, headers, body, post)
        response.read()
        answer = self.api_client.response_deserialize(response, {"200": "object"}).data
        if answer.get("metadata", {}).get("name") != name:
            raise RuntimeError(f"the answer is not the Nginx: {str(answer)[:200]}")

    def wait_for(self, name, done, timeout=90):
        """Gets the Nginx until done(status) holds; its status."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.api.get_namespaced_custom_object_status(GROUP, VERSION, self.canary_ns, PLURAL, name).get("status", {})
            if done(status):
                return status
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out, status {json.dumps(status)[:300]}")
            time.sleep(0.25)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--canary-namespace", required=True, help="a namespace a controller watches")
    parser.add_argument("--controlplane", action="store_true", help="the server is our API (promote and abort by its requests)")
    args = parser.parse_args()
    api_client = config.new_client_from_config(config_file=args.kubeconfig)
    checks = Checks(api_client, args.namespace, args.canary_namespace, args.controlplane)
    for name, run in (
        ("CustomObjectsApi: create, replace, list, patch", checks.custom_objects),
        ("CustomObjectsApi: scale", checks.scale),
        ("CustomObjectsApi: errors", checks.errors),
        ("watch.Watch().stream", checks.watch_stream),
        ("delete_collection_namespaced_custom_object", checks.delete_collection),
        ("DynamicClient discovery", checks.dynamic_discovery),
        ("DynamicClient server_side_apply, two managers", checks.dynamic_apply),
        ("canary: paused, promoted, aborted", checks.canary),
    ):
        try:
            outcome = run()
        except Exception as error:  # a check that breaks reports how, and the others still run
            outcome = failure(error)
        print(json.dumps({"check": name, "outcome": outcome}), flush=True)


if __name__ == "__main__":
    main()

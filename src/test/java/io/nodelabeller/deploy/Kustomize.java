package io.nodelabeller.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.zjsonpatch.JsonPatch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The part of kustomize our manifests use, in plain Java (no kustomize binary here): {@code resources} (files and
 * directories), {@code patches} (JSON 6902, inline or in a file, target by kind, anchored name regex matched against the
 * original or current name, and equality label selector, as kustomize selects), {@code nameSuffix} (with the
 * {@code nameReference}s of {@code configurations}: a field naming a renamed object follows it, in this
 * kustomization and those that build on it), {@code namespace} (with kustomize's side effects: the Namespace object
 * renamed, binding subjects that name a moved service account moved too), {@code images} and {@code components}
 * (a Component's resources added and its patches applied to what the kustomization has gathered, before its own
 * transformations, as kustomize orders them; a Component's patch may match nothing). Any other kustomization key, or a
 * kustomization's patch that matches nothing, is an error, so a manifest change that needs more of kustomize fails
 * here instead of being rendered wrongly.
 */
final class Kustomize {

    static final YAMLMapper YAML = new YAMLMapper();
    private static final Set<String> KEYS = Set.of("apiVersion", "kind", "namespace", "resources", "patches",
            "nameSuffix", "images", "configurations", "components");
    private static final Set<String> COMPONENT_KEYS = Set.of("apiVersion", "kind", "resources", "patches");
    /**
     * The kinds our manifests use that kustomize's {@code namespace:} leaves alone, as kustomize decides it: from
     * the built-in OpenAPI data of kyaml ({@code kyaml/openapi/openapi.go}, {@code precomputedIsNamespaceScoped}),
     * which up to at least kustomize 5.5 does not list ValidatingAdmissionPolicy(Binding), so kustomize stamps a
     * namespace on them (kubernetes-sigs/kustomize#6051). Mirrored here so that this renderer makes the same
     * mistake kustomize makes, and {@code ManifestsTest} sees it.
     */
    static final Set<String> KUSTOMIZE_CLUSTER_SCOPED = Set.of("Namespace", "ClusterRole", "ClusterRoleBinding",
            "RuntimeClass", "PriorityClass");

    /** One rendered object and the name it had before any suffix (kustomize's "original id"). */
    record Resource(String originalName, ObjectNode object) {
        String kind() {
            return object.path("kind").asText();
        }

        String name() {
            return object.path("metadata").path("name").asText();
        }
    }

    private Kustomize() {
    }

    /** A {@code nameReference} of a {@code configurations} file: field {@code path} of {@code referrer}s names a {@code kind}. */
    record NameReference(String kind, String referrer, List<String> path) {
    }

    static List<Resource> render(Path dir) {
        return render(dir, new ArrayList<>());
    }

    /** {@code references}: the name references of this kustomization and those it builds on, gathered as kustomize does. */
    private static List<Resource> render(Path dir, List<NameReference> references) {
        JsonNode k = read(dir.resolve("kustomization.yaml")).get(0);
        for (Iterator<String> it = k.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException(dir + "/kustomization.yaml: '" + key + "' is not supported by this renderer");
            }
        }
        List<Resource> out = new ArrayList<>();
        for (JsonNode r : k.path("resources")) {
            Path p = dir.resolve(r.asText()).normalize();
            if (Files.isDirectory(p)) {
                out.addAll(render(p, references));
            } else {
                for (JsonNode doc : read(p)) {
                    out.add(new Resource(doc.path("metadata").path("name").asText(), (ObjectNode) doc));
                }
            }
        }
        for (JsonNode c : k.path("components")) {
            addComponent(dir.resolve(c.asText()).normalize(), out);
        }
        for (JsonNode config : k.path("configurations")) {
            for (JsonNode doc : read(dir.resolve(config.asText()))) {
                for (JsonNode ref : doc.path("nameReference")) {
                    for (JsonNode spec : ref.path("fieldSpecs")) {
                        references.add(new NameReference(ref.path("kind").asText(), spec.path("kind").asText(),
                                fieldPath(spec.path("path").asText())));
                    }
                }
            }
        }
        for (JsonNode patch : k.path("patches")) {
            applyPatch(dir, patch, out, false);
        }
        String suffix = k.path("nameSuffix").asText("");
        if (!suffix.isEmpty()) {
            renameReferences(out, references, suffix);
        }
        String namespace = k.path("namespace").asText("");
        // kustomize's name references: a binding subject naming a service account that moves moves with it
        Set<String> movedAccounts = new java.util.HashSet<>();
        if (!namespace.isEmpty()) {
            out.stream().filter(r -> r.kind().equals("ServiceAccount"))
                    .forEach(r -> movedAccounts.add(r.object().path("metadata").path("namespace").asText("") + "/" + r.name()));
        }
        for (Resource r : out) {
            ObjectNode meta = (ObjectNode) r.object().path("metadata");
            if (!suffix.isEmpty()) {
                meta.put("name", meta.path("name").asText() + suffix);
            }
            if (!namespace.isEmpty() && !KUSTOMIZE_CLUSTER_SCOPED.contains(r.kind())) {
                meta.put("namespace", namespace);
            }
            if (!namespace.isEmpty() && r.kind().equals("Namespace")) {
                meta.put("name", namespace); // kustomize renames the Namespace object itself
            }
            if (!namespace.isEmpty() && r.kind().endsWith("RoleBinding")) {
                for (JsonNode subject : r.object().path("subjects")) {
                    if (subject.path("kind").asText().equals("ServiceAccount")
                            && movedAccounts.contains(subject.path("namespace").asText("") + "/" + subject.path("name").asText())) {
                        ((ObjectNode) subject).put("namespace", namespace);
                    }
                }
            }
            for (JsonNode image : k.path("images")) {
                setImage(r.object(), image);
            }
        }
        return out;
    }

    /** A kustomize Component at {@code dir}: its resources join {@code out}, its patches apply to all of them. */
    private static void addComponent(Path dir, List<Resource> out) {
        JsonNode c = read(dir.resolve("kustomization.yaml")).get(0);
        for (Iterator<String> it = c.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!COMPONENT_KEYS.contains(key)) {
                throw new IllegalArgumentException(dir + "/kustomization.yaml: '" + key + "' is not supported by this renderer");
            }
        }
        if (!c.path("kind").asText().equals("Component")) {
            throw new IllegalArgumentException(dir + "/kustomization.yaml: a component must be of kind Component");
        }
        for (JsonNode r : c.path("resources")) {
            for (JsonNode doc : read(dir.resolve(r.asText()).normalize())) {
                out.add(new Resource(doc.path("metadata").path("name").asText(), (ObjectNode) doc));
            }
        }
        for (JsonNode patch : c.path("patches")) {
            applyPatch(dir, patch, out, true);
        }
    }

    /** A field spec's path: its fields split at '/', a '\/' being a slash inside a field name (an annotation key). */
    static List<String> fieldPath(String path) {
        List<String> out = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        for (int i = 0; i < path.length(); i++) {
            char ch = path.charAt(i);
            if (ch == '\\' && i + 1 < path.length() && path.charAt(i + 1) == '/') {
                field.append('/');
                i++;
            } else if (ch == '/') {
                out.add(field.toString());
                field.setLength(0);
            } else {
                field.append(ch);
            }
        }
        out.add(field.toString());
        return out;
    }

    /** Fields that name an object this kustomization renames (by {@code suffix}) are renamed with it. */
    private static void renameReferences(List<Resource> resources, List<NameReference> references, String suffix) {
        for (NameReference ref : references) {
            Set<String> renamed = new java.util.HashSet<>();
            resources.stream().filter(r -> r.kind().equals(ref.kind())).forEach(r -> renamed.add(r.name()));
            for (Resource r : resources) {
                if (!r.kind().equals(ref.referrer())) {
                    continue;
                }
                rename(r.object(), ref.path(), renamed, suffix);
            }
        }
    }

    /**
     * Renames the names in {@code renamed} found at {@code path} under {@code node}: as kustomize walks a field spec,
     * a list on the way is walked element by element, and a list of names at its end name by name.
     */
    private static void rename(JsonNode node, List<String> path, Set<String> renamed, String suffix) {
        if (node.isArray()) {
            node.forEach(element -> rename(element, path, renamed, suffix));
            return;
        }
        if (!(node instanceof ObjectNode o) || path.isEmpty()) {
            return;
        }
        String field = path.get(0);
        if (path.size() > 1) {
            rename(o.path(field), path.subList(1, path.size()), renamed, suffix);
        } else if (o.path(field).isArray()) {
            com.fasterxml.jackson.databind.node.ArrayNode names = (com.fasterxml.jackson.databind.node.ArrayNode) o.path(field);
            for (int i = 0; i < names.size(); i++) {
                if (renamed.contains(names.get(i).asText())) {
                    names.set(i, names.get(i).asText() + suffix);
                }
            }
        } else if (renamed.contains(o.path(field).asText())) {
            o.put(field, o.path(field).asText() + suffix);
        }
    }

    private static void applyPatch(Path dir, JsonNode patch, List<Resource> resources, boolean mayMatchNothing) {
        JsonNode target = patch.path("target");
        String kind = target.path("kind").asText();
        Pattern name = target.has("name") ? Pattern.compile("^(?:" + target.path("name").asText() + ")$") : null;
        String selector = target.path("labelSelector").asText("");
        JsonNode ops;
        try {
            ops = patch.has("path") ? YAML.readTree(dir.resolve(patch.path("path").asText()).toFile())
                    : YAML.readTree(patch.path("patch").asText());
        } catch (IOException e) {
            throw new UncheckedIOException(dir + ": bad patch", e);
        }
        int matched = 0;
        for (int i = 0; i < resources.size(); i++) {
            Resource r = resources.get(i);
            if (!r.kind().equals(kind)
                    || (name != null && !name.matcher(r.originalName()).matches() && !name.matcher(r.name()).matches())
                    || !labelsMatch(r.object(), selector)) {
                continue;
            }
            resources.set(i, new Resource(r.originalName(), (ObjectNode) JsonPatch.apply(ops, r.object())));
            matched++;
        }
        if (matched == 0 && !mayMatchNothing) {
            throw new IllegalArgumentException(dir + ": patch target " + target + " matches nothing");
        }
    }

    private static boolean labelsMatch(JsonNode object, String selector) {
        if (selector.isEmpty()) {
            return true;
        }
        JsonNode labels = object.path("metadata").path("labels");
        for (String term : selector.split(",")) {
            String[] kv = term.split("=", 2);
            if (!labels.path(kv[0].trim()).asText("\0").equals(kv[1].trim())) {
                return false;
            }
        }
        return true;
    }

    private static void setImage(ObjectNode object, JsonNode image) {
        JsonNode podSpec = object.path("spec").path("template").path("spec");
        for (String list : List.of("containers", "initContainers")) {
            for (JsonNode c : podSpec.path(list)) {
                String ref = c.path("image").asText();
                String repo = ref.replaceFirst("@.*$", "").replaceFirst(":[^:/]*$", "");
                if (repo.equals(image.path("name").asText())) {
                    String newRepo = image.path("newName").asText(repo);
                    ((ObjectNode) c).put("image", newRepo + ":" + image.path("newTag").asText());
                }
            }
        }
    }

    /** Every document of a YAML file (empty documents skipped). */
    static List<JsonNode> read(Path file) {
        try {
            List<JsonNode> docs = new ArrayList<>();
            try (var it = YAML.readValues(YAML.getFactory().createParser(file.toFile()), JsonNode.class)) {
                while (it.hasNext()) {
                    JsonNode d = it.next();
                    if (d != null && !d.isNull() && !d.isMissingNode()) {
                        docs.add(d);
                    }
                }
            }
            return docs;
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }
}

package io.tierroute.deploy.local;

import static io.tierroute.deploy.local.FlinkRestTransport.JSON;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tierroute.deploy.local.FlinkRestClient.FlinkRestException;
import io.tierroute.deploy.local.FlinkRestClient.RunRequest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Job jars on the cluster, for {@link FlinkRestClient}: uploading one as a multipart form ({@code POST /jars/upload},
 * given a minute more than a GET, like every POST), running its main in the JobManager ({@code POST /jars/<id>/run}) and deleting
 * it from the cluster's upload directory ({@code DELETE /jars/<id>}).
 */
final class FlinkJars {

    private final FlinkRestTransport rest;

    FlinkJars(FlinkRestTransport rest) {
        this.rest = rest;
    }

    /**
     * @throws IllegalStateException naming the jar when it is no file or cannot be read (a local failure, which callers
     *                               report as such, not a defect)
     */
    String upload(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the job jar " + jar + " does not exist or is not a file");
        }
        String boundary = "tierroute-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try {
            body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                    + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            body.write(Files.readAllBytes(jar));
            body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("could not read the job jar " + jar + ": " + e.getMessage(), e);
        }
        HttpRequest req = HttpRequest.newBuilder(rest.at("/jars/upload")).timeout(rest.timeout().plusSeconds(60))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build();
        JsonNode n = rest.send(req, "upload " + jar.getFileName());
        String file = n.path("filename").asText();
        if (!n.path("status").asText().equals("success") || file.isEmpty()) {
            throw new FlinkRestException("uploading " + jar + " to " + rest.base() + " failed: " + n, null);
        }
        return Path.of(file).getFileName().toString();
    }

    String run(String jarId, RunRequest r) {
        ObjectNode body = JSON.createObjectNode();
        if (r.entryClass() != null) {
            body.put("entryClass", r.entryClass());
        }
        body.set("programArgsList", JSON.valueToTree(r.args()));
        if (r.savepointPath() != null) {
            body.put("savepointPath", r.savepointPath());
            body.put("allowNonRestoredState", r.allowNonRestoredState());
        }
        if (r.parallelism() != null) {
            body.put("parallelism", r.parallelism());
        }
        JsonNode n = rest.post("/jars/" + jarId + "/run", body, "run the job jar");
        String id = n.path("jobid").asText();
        if (id.isEmpty()) {
            throw new FlinkRestException("running the job jar gave no job id: " + n, null);
        }
        return id;
    }

    void delete(String jarId) {
        HttpRequest req = HttpRequest.newBuilder(rest.at("/jars/" + jarId)).timeout(rest.timeout()).DELETE().build();
        rest.send(req, "delete the uploaded jar " + jarId);
    }
}

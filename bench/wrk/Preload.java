import io.tierroute.selector.protocol.BlockHasher;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.StringJoiner;

/**
 * Posts KV events so the benchmark's 64 workers hold the prefixes route.lua asks for:
 * each prompt's full 500 blocks on HBM of one worker, each group's shared 300-block system prefix
 * on HBM of a second worker and in CPU memory of a third. Same prompt layout as route.lua.
 * Run: java -cp cli/target/tierroute.jar bench/wrk/Preload.java http://127.0.0.1:PORT [model] [workers]
 */
public class Preload {
    static final int PROMPTS = 256, GROUPS = 32, BLOCKS = 500, PREFIX = 300;

    public static void main(String[] args) throws Exception {
        String base = args[0];
        String model = args.length > 1 ? args[1] : "qwen3-32b";
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        long salt = BlockHasher.salt(model, null, null);
        BlockHasher hasher = new BlockHasher();
        HttpClient client = HttpClient.newHttpClient();
        int posts = 0, events = 0;
        for (int p = 0; p < PROMPTS; p++) {
            long[] ids = new long[BLOCKS];
            int g = p % GROUPS;
            for (int i = 0; i < BLOCKS; i++) {
                ids[i] = i < PREFIX ? g * 1_000_000L + i : 1_000_000_000L + p * 1000L + (i - PREFIX);
            }
            long[] h = new long[BLOCKS];
            hasher.hashBlockIds(ids, BLOCKS, salt, h);
            post(client, base, "w" + (p * 7 % workers), "hbm", h, BLOCKS);
            posts++;
            events++;
            if (p < GROUPS) { // the group's shared prefix, once per group
                post(client, base, "w" + ((g * 3 + 1) % workers), "hbm", h, PREFIX);
                post(client, base, "w" + ((g * 3 + 2) % workers), "cpu", h, PREFIX);
                posts += 2;
                events += 2;
            }
        }
        System.out.println("preload: " + posts + " KV event batches (" + events + " stored events) posted");
    }

    static void post(HttpClient client, String base, String worker, String tier, long[] h, int n) throws Exception {
        StringJoiner j = new StringJoiner(",", "[", "]");
        for (int i = 0; i < n; i++) {
            j.add(Long.toString(h[i]));
        }
        String body = "{\"worker\":\"" + worker + "\",\"events\":[{\"type\":\"stored\",\"tier\":\"" + tier
                + "\",\"block_hashes\":" + j + "}]}";
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/v1/kv-events"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) {
            throw new IllegalStateException("kv-events for " + worker + " answered " + r.statusCode() + ": " + r.body());
        }
    }
}

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;

/**
 * Test vectors written by the message classes Kafka's generator writes for a schema.
 *
 * <p>Reads cases from standard input, one JSON object a line:
 * {"id": "...", "class": "<the generated class>", "version": N, "value": <Kafka's JSON form>}.
 * For each it reads the value with the class's JSON converter, writes it with the class at that
 * version, reads those bytes back with the class (they must give an equal object and be used
 * up) and writes the object with the converter again. It prints one line per case, in order:
 * {"id": "...", "hex": "<the bytes>", "json": <the converter's JSON>}.
 *
 * <p>A case that fails stops the program with a message naming it and exit status 1: every
 * case must give a vector.
 */
public final class Vectors {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        int count = 0;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode c = JSON.readTree(line);
            String id = c.path("id").asText("(line " + (count + 1) + ")");
            try {
                out.write(JSON.writeValueAsString(vector(id, c)));
                out.write('\n');
            } catch (Throwable e) {
                out.flush();
                Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
                System.err.println("FAILED: case " + id + ": " + cause);
                cause.printStackTrace();
                System.exit(1);
            }
            count++;
        }
        out.flush();
        System.err.println(count + " vectors");
    }

    private static ObjectNode vector(String id, JsonNode c) throws Exception {
        Class<?> type = Class.forName(c.get("class").asText());
        Class<?> converter = Class.forName(type.getName() + "JsonConverter");
        short version = (short) c.get("version").asInt();

        Message message = (Message) converter.getMethod("read", JsonNode.class, short.class)
                .invoke(null, c.get("value"), version);

        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = message.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        message.write(new ByteBufferAccessor(buffer), cache, version);
        require(buffer.position() == size,
                "wrote " + buffer.position() + " bytes where size() said " + size);
        buffer.flip();

        ByteBuffer input = buffer.duplicate();
        Object back = type.getConstructor(Readable.class, short.class)
                .newInstance(new ByteBufferAccessor(input), version);
        require(!input.hasRemaining(), "reading back left " + input.remaining() + " bytes");
        require(back.equals(message),
                "reading back gave a different object:\n  " + back + "\nwritten:\n  " + message);

        JsonNode json = (JsonNode) converter.getMethod("write", type, short.class)
                .invoke(null, message, version);

        ObjectNode vector = JSON.createObjectNode();
        vector.put("id", id);
        vector.put("hex", hex(buffer));
        vector.set("json", json);
        return vector;
    }

    private static void require(boolean condition, String problem) {
        if (!condition) {
            throw new IllegalStateException(problem);
        }
    }

    private static String hex(ByteBuffer bytes) {
        StringBuilder text = new StringBuilder(bytes.remaining() * 2);
        for (int i = bytes.position(); i < bytes.limit(); i++) {
            text.append(Character.forDigit((bytes.get(i) >> 4) & 0xf, 16));
            text.append(Character.forDigit(bytes.get(i) & 0xf, 16));
        }
        return text.toString();
    }
}

# The selector's image: the tierroute command (shaded cli jar) on a Java 17 runtime; the Deployment
# passes `selector --config /etc/tierroute/selector.yaml`.
# Build from the repository root after `mvn -B -pl cli -am package -DskipTests`:
#   docker build -f deploy/k8s/images/selector.Dockerfile -t tierroute/selector:0.1.0-SNAPSHOT .
FROM eclipse-temurin:17-jre
COPY cli/target/tierroute.jar /opt/tierroute/tierroute.jar
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["java", "-jar", "/opt/tierroute/tierroute.jar"]

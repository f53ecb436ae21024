# The fitting job's image for the Flink Kubernetes Operator (application mode): the official Flink
# image of the version the job is built against, with the shaded job jar in usrlib.
# Build from the repository root after `mvn -B -pl streaming-jobs -am package -DskipTests`:
#   docker build -f deploy/k8s/images/fitting-job.Dockerfile -t tierroute/fitting-job:0.1.0-SNAPSHOT .
FROM flink:2.2.1-java17
COPY streaming-jobs/target/tierroute-streaming-jobs-0.1.0-SNAPSHOT-job.jar /opt/flink/usrlib/tierroute-fitting-job.jar

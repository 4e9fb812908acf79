-- CreateTable
CREATE TABLE "TimelineEntry" (
    "id" SERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "namespace" TEXT NOT NULL,
    "nginx" TEXT NOT NULL,
    "nginxUid" TEXT,
    "kind" TEXT NOT NULL,
    "what" TEXT NOT NULL,
    "pod" TEXT,
    "podUid" TEXT,
    "node" TEXT,
    "reason" TEXT,
    "message" TEXT,
    "actor" TEXT,
    "type" TEXT,
    "count" INTEGER,
    "dedupeKey" TEXT,

    CONSTRAINT "TimelineEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "TimelineEntry_dedupeKey_key" ON "TimelineEntry"("dedupeKey");

-- CreateIndex
CREATE INDEX "TimelineEntry_namespace_nginx_at_idx" ON "TimelineEntry"("namespace", "nginx", "at");

-- CreateIndex
CREATE INDEX "TimelineEntry_namespace_pod_at_idx" ON "TimelineEntry"("namespace", "pod", "at");

-- CreateIndex
CREATE INDEX "TimelineEntry_at_idx" ON "TimelineEntry"("at");

-- CreateTable
CREATE TABLE "ReconcileRecord" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "uid" TEXT,
    "generation" INTEGER,
    "resourceVersion" TEXT,
    "trigger" TEXT NOT NULL,
    "desiredReplicas" INTEGER,
    "activeReplicas" INTEGER,
    "readyReplicas" INTEGER,
    "actions" TEXT NOT NULL DEFAULT '[]',
    "result" TEXT NOT NULL,
    "error" TEXT,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "instanceId" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "ReconcileRecord_namespace_name_startedAt_idx" ON "ReconcileRecord"("namespace", "name", "startedAt");

-- CreateIndex
CREATE INDEX "ReconcileRecord_startedAt_idx" ON "ReconcileRecord"("startedAt");

-- CreateIndex
CREATE INDEX "ReconcileRecord_result_startedAt_idx" ON "ReconcileRecord"("result", "startedAt");


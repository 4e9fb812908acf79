-- CreateTable
CREATE TABLE "ChangeRecord" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "at" DATETIME NOT NULL,
    "actor" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "verb" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "subresource" TEXT,
    "patchType" TEXT,
    "specBefore" TEXT,
    "specAfter" TEXT,
    "code" INTEGER NOT NULL,
    "reason" TEXT,
    "message" TEXT,
    "uid" TEXT,
    "resourceVersion" TEXT,
    "userAgent" TEXT
);

-- CreateIndex
CREATE INDEX "ChangeRecord_namespace_name_at_idx" ON "ChangeRecord"("namespace", "name", "at");

-- CreateIndex
CREATE INDEX "ChangeRecord_at_idx" ON "ChangeRecord"("at");

-- CreateIndex
CREATE INDEX "ChangeRecord_actor_at_idx" ON "ChangeRecord"("actor", "at");


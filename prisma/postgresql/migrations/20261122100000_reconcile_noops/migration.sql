-- CreateTable
CREATE TABLE "ReconcileNoop" (
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "lastAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ReconcileNoop_pkey" PRIMARY KEY ("namespace","name")
);


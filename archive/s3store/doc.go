// Package s3store is the [archive.Store] on any S3-compatible object
// store (AWS S3, MinIO, Ceph RGW, versitygw, …), through minio-go. It is
// an [archive.Deleter]; it is not an [archive.Locker], so the archiver
// guards each stream with its lease in the engine.
//
// Objects are single PUTs, atomic by the S3 contract. An exclusive Put
// sends "If-None-Match: *", the conditional write that makes the manifest
// commit a compare-and-set: the store must honour it (AWS S3 since 2024,
// MinIO, versitygw do); the conformance suite checks it.
//
//	store, err := s3store.New(&s3store.Config{
//		Endpoint: "s3.example.com", Bucket: "echomq-archive",
//		AccessKey: os.Getenv("S3_ACCESS_KEY"), SecretKey: os.Getenv("S3_SECRET_KEY"),
//	})
//
// Package s3store/s3test starts a real S3-compatible server (versitygw)
// for tests.
package s3store

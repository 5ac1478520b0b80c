. /ksymtap/bench_lib.sh
ktbload cycle -n 1000 -W 100 >/dev/null
for r in 1 2 3; do
for c in base text raw json stop; do
	case $c in
	text) ktb_start /dev/null kt.err ;;
	raw) ktb_start /dev/null kt.err -f raw ;;
	json) ktb_start /dev/null kt.err -f json ;;
	stop) ktb_start /dev/null kt.err; kill -STOP $KT_PID ;;
	esac
	echo "$c $(ktbload cycle -n 1000 -W 100)"
	[ $c = stop ] && kill -CONT $KT_PID
	[ $c != base ] && ktb_stop
	sleep 1
done
done
